#!/usr/bin/env node
// The entry point behind `npm start`, `npm test` and `npm run stack` on a fresh machine that has
// only Node and npm: it installs the pinned pnpm into a cache, installs the workspace's locked
// dependencies when the lockfile changed, then runs the named root script with pnpm on the PATH.
// Plain Node with no dependencies, because nothing else is installed when it runs.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const task = process.argv[2];
if (!task) {
  console.error('usage: node tools/run.mjs <root-script>');
  process.exit(2);
}

const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = rootPackage.packageManager.replace(/^pnpm@/, '');
const cacheDir = process.env.UNDERDOG_CACHE ?? join(homedir(), '.cache', 'underdog');

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) {
    console.error(
      `run: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`,
    );
    process.exit(result.status ?? 1);
  }
}

function ensurePnpm() {
  const prefix = join(cacheDir, `pnpm-${pnpmVersion}`);
  const cli = join(prefix, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');
  if (!existsSync(cli)) {
    console.log(`run: installing pnpm ${pnpmVersion} into ${prefix}`);
    mkdirSync(prefix, { recursive: true });
    run('npm', [
      'install',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      '--no-save',
      `pnpm@${pnpmVersion}`,
    ]);
  }
  const binDir = join(prefix, 'bin');
  mkdirSync(binDir, { recursive: true });
  const shim = join(binDir, 'pnpm');
  const shimText = `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`;
  if (!existsSync(shim) || readFileSync(shim, 'utf8') !== shimText) {
    writeFileSync(shim, shimText);
    chmodSync(shim, 0o755);
  }
  return binDir;
}

/**
 * Native addons (argon2) are compiled when no prebuilt binary fits. node-gyp then needs Node's
 * headers; without a configured nodedir it downloads them, which fails on a machine that reaches
 * only package registries. Point it at the headers installed with Node when they are there.
 */
function nativeBuildEnv() {
  if (process.env.npm_config_nodedir) return {};
  const prefix = join(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'node.h'))
    ? { npm_config_nodedir: prefix }
    : {};
}

function ensureDependencies(pathEnv) {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(root, 'pnpm-lock.yaml')));
  hash.update(readFileSync(join(root, 'pnpm-workspace.yaml')));
  hash.update(pnpmVersion);
  const stampFile = join(root, 'node_modules', '.underdog-install-stamp');
  const stamp = hash.digest('hex');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  console.log('run: installing dependencies (pnpm install --frozen-lockfile)');
  run('pnpm', ['install', '--frozen-lockfile'], {
    env: { ...process.env, ...nativeBuildEnv(), PATH: pathEnv },
  });
  writeFileSync(stampFile, stamp);
}

const binDir = ensurePnpm();
const pathEnv = `${binDir}:${join(root, 'node_modules', '.bin')}:${process.env.PATH}`;
ensureDependencies(pathEnv);

// Ctrl-C reaches every process in the foreground group; this launcher only waits for the task
// to finish its own graceful shutdown and passes its exit status on.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => {});
const child = spawn('pnpm', ['run', '--silent', task, ...process.argv.slice(3)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: pathEnv },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
