#!/usr/bin/env node
// Bundles every runnable process (each service, the gateway, the standalone runner) into one
// CommonJS file with esbuild: workspace packages and their dependencies are inlined, so a process
// starts fast and its container image needs only the bundle plus the few modules listed below.
// Then builds the web app (Vite) into web/dist, which the standalone gateway serves at `/`.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Native addons cannot be bundled; optional drivers are loaded by mongodb inside try/catch and
// are absent on purpose.
const external = [
  'argon2',
  'kerberos',
  '@mongodb-js/zstd',
  'snappy',
  'socks',
  'aws4',
  'mongodb-client-encryption',
  'gcp-metadata',
  '@aws-sdk/credential-providers',
  'bufferutil',
  'utf-8-validate',
];

// Every process entry (`src/main.ts`) and operator command (`src/cli.ts`) becomes `dist/<name>.js`.
const entries = [
  ...readdirSync(join(root, 'services')).map((name) => `services/${name}`),
  'gateway',
  'apps/standalone',
].flatMap((dir) =>
  ['main', 'cli']
    .filter((name) => existsSync(join(root, dir, 'src', `${name}.ts`)))
    .map((name) => ({ dir, name })),
);

const started = Date.now();
await Promise.all(
  entries.map(({ dir, name }) =>
    build({
      entryPoints: [join(root, dir, 'src', `${name}.ts`)],
      outfile: join(root, dir, 'dist', `${name}.js`),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: 'linked',
      external,
      logLevel: 'warning',
      // Keep class and function names: they appear in logs and error stacks.
      keepNames: true,
    }),
  ),
);
console.log(`build: bundled ${entries.length} entry points in ${Date.now() - started} ms`);

// The web app, with the web package's own Vite (run in-process would load a second esbuild).
const webStarted = Date.now();
const webDir = join(root, 'web');
const vite = join(
  dirname(createRequire(join(webDir, 'package.json')).resolve('vite/package.json')),
  'bin',
  'vite.js',
);
const web = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
  cwd: webDir,
  stdio: 'inherit',
});
if (web.status !== 0) {
  console.error(`build: the web app failed to build (exit ${web.status ?? web.signal})`);
  process.exit(web.status ?? 1);
}
console.log(`build: built the web app into web/dist in ${Date.now() - webStarted} ms`);
