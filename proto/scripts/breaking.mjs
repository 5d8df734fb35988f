#!/usr/bin/env node
// `buf breaking` against the contracts on a git ref (default `main`; CI may pass `origin/main`):
//   pnpm --filter @underdog/proto run breaking [ref]
// Until `main` exists and holds proto/, there is nothing published to break, so the check is
// skipped with a message instead of failing: a fresh repository must still pass its checks.
// A ref named explicitly must exist, so a CI typo or a too-shallow clone cannot pass silently.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const protoDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const explicitRef = process.argv[2];
const ref = explicitRef ?? 'main';

function git(args) {
  const result = spawnSync('git', args, { cwd: protoDir, encoding: 'utf8' });
  return { ok: result.status === 0, out: (result.stdout ?? '').trim() };
}

const gitDir = git(['rev-parse', '--path-format=absolute', '--git-common-dir']);
if (!gitDir.ok) {
  console.log('breaking: not inside a git repository; skipped.');
  process.exit(0);
}
// The folder of this package inside the repository, e.g. `proto/`.
const prefix = git(['rev-parse', '--show-prefix']).out;
if (!git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).ok) {
  if (explicitRef !== undefined) {
    console.error(`breaking: '${ref}' is not a commit in this repository (shallow clone?)`);
    process.exit(1);
  }
  console.log(`breaking: no commit at '${ref}' yet, nothing to compare against; skipped.`);
  process.exit(0);
}
if (!git(['cat-file', '-e', `${ref}:${prefix}buf.yaml`]).ok) {
  console.log(
    `breaking: '${ref}' has no ${prefix}buf.yaml yet, nothing to compare against; skipped.`,
  );
  process.exit(0);
}

const subdir = prefix.replace(/\/$/, '') || '.';
const against = `${gitDir.out}#ref=${ref},subdir=${subdir}`;
console.log(`breaking: buf breaking --against '${against}'`);
const buf = spawnSync(
  join(protoDir, 'node_modules', '.bin', 'buf'),
  ['breaking', '--against', against],
  {
    cwd: protoDir,
    stdio: 'inherit',
  },
);
if (buf.error) throw buf.error;
process.exit(buf.status ?? 1);
