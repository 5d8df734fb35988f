#!/usr/bin/env node
// `pnpm run test:jest`: every jest project, in two runs side by side, because the machine's two
// cores sat half idle while one jest worker waited on round timers (issue 40 point 6):
// - the server tiers (integration, e2e: the harness's real servers, whole processes, the browser)
//   run one file at a time, as before: they share those servers and measure closes against
//   deadlines, so they never run beside each other;
// - the tiers without servers (unit, chart, and browser: the web app in Chromium against the
//   bundled standalone) run in a second jest beside them, one file at a time too.
// The second run is niced (10): when both want the CPU, the server tiers' processes (whose closes
// are measured against deadlines, e.g. the fault suite's) go first, and the offline run, which only
// waits longer, takes the rest; the server tiers mostly wait on round timers, so it rarely waits.
// The server tiers' output streams as it comes; the other run's is printed in one block when
// they are done, so the two never interleave. Exit 1 if either run failed; the last line is the
// sum of both runs' `N passed, N failed` (tools/jest-summary-reporter.js), which CI reads.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);
const SUMMARY = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m;

function runJest(projects, { stream, niceness = 0 }) {
  return new Promise((resolve) => {
    const jestArgs = [jest, '--ci', '--verbose', '--selectProjects', ...projects, ...extra];
    // `nice` (coreutils) rather than os.setPriority after the spawn: jest's workers inherit it.
    const [command, args] =
      niceness > 0 && process.platform !== 'win32'
        ? ['nice', ['-n', String(niceness), process.execPath, ...jestArgs]]
        : [process.execPath, jestArgs];
    const child = spawn(command, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const take = (target) => (chunk) => {
      output += chunk;
      if (stream) target.write(chunk);
    };
    child.stdout.on('data', take(process.stdout));
    child.stderr.on('data', take(process.stderr));
    child.on('close', (code, signal) => {
      const lines = [...output.matchAll(new RegExp(SUMMARY, 'gm'))];
      const last = lines.at(-1);
      resolve({
        projects,
        output,
        ok: code === 0,
        exit: code ?? signal,
        passed: Number(last?.[1] ?? 0),
        failed: Number(last?.[2] ?? 0),
        skipped: Number(last?.[3] ?? 0),
        summarised: last !== undefined,
      });
    });
  });
}

const started = Date.now();
const offline = runJest(['unit', 'chart', 'browser'], { stream: false, niceness: 10 }).then(
  (run) => {
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    process.stdout.write(
      `\n===== unit, chart, browser: done after ${minutes} min =====\n${run.output}` +
        `===== end of unit, chart, browser =====\n\n`,
    );
    return run;
  },
);
const servers = runJest(['integration', 'e2e'], { stream: true });
const runs = await Promise.all([servers, offline]);

const total = runs.reduce(
  (sum, run) => ({
    passed: sum.passed + run.passed,
    failed: sum.failed + run.failed,
    skipped: sum.skipped + run.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
for (const run of runs) {
  const what = run.projects.join(' + ');
  if (!run.ok) console.error(`test-tiers: the ${what} run failed (exit ${run.exit})`);
  else if (!run.summarised) console.error(`test-tiers: the ${what} run printed no summary`);
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.error(`test-tiers: both runs done in ${minutes} min`);
const line = `${total.passed} passed, ${total.failed} failed`;
process.stderr.write(`\n${total.skipped > 0 ? `${line}, ${total.skipped} skipped` : line}\n`);
process.exit(runs.every((run) => run.ok && run.summarised) ? 0 : 1);
