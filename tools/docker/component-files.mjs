#!/usr/bin/env node
// Used by the Dockerfile: copies one component's bundle to <out>/dist and installs, next to it,
// the dependencies the bundle leaves external (native addons such as argon2: see tools/build.mjs)
// that the component declares, at the exact versions its package.json pins.
//
//   node tools/docker/component-files.mjs <gateway|auth|tournament|game-engine|ads|notification> <out>
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const [component, out] = process.argv.slice(2);
if (!component || !out) {
  console.error('usage: component-files.mjs <component> <out>');
  process.exit(2);
}
const dir = component === 'gateway' ? 'gateway' : join('services', component);
const bundle = join(dir, 'dist', 'main.js');
if (!existsSync(bundle)) {
  console.error(`component-files: ${bundle} is missing (unknown component "${component}"?)`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
cpSync(join(dir, 'dist'), join(out, 'dist'), { recursive: true });

// Modules the bundle still requires at run time, minus Node's own.
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const required = new Set(
  [...readFileSync(bundle, 'utf8').matchAll(/\brequire\("([^"./][^"]*)"\)/g)]
    .map(([, name]) =>
      name
        .split('/')
        .slice(0, name.startsWith('@') ? 2 : 1)
        .join('/'),
    )
    .filter((name) => !builtins.has(name)),
);
const declared = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies ?? {};
const runtime = Object.entries(declared).filter(([name]) => required.has(name));
// The rest (mongodb's optional drivers, ws's optional speed-ups) are loaded inside try/catch.
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify({ private: true, dependencies: Object.fromEntries(runtime) }, null, 2)}\n`,
);
if (runtime.length > 0) {
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock'], {
    cwd: out,
    stdio: 'inherit',
  });
}
console.log(
  `component-files: ${component} -> ${out} (${runtime.map(([n, v]) => `${n}@${v}`).join(', ') || 'bundle only'})`,
);
