// What the benchmark commands (`main.ts`, `pair.ts`) share: their arguments, the machine line
// and where results and logs go.
import { execSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import type { BenchMode } from './bench';

const root = join(__dirname, '..', '..');

/** The command's arguments, without the `--` pnpm passes through. */
export function commandArgs(): string[] {
  return process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--'));
}

/** A whole number ≥ 1 from a flag's text, or a clear error naming the flag. */
export function wholeNumber(value: string | undefined, flag: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${flag}: a whole number ≥ 1`);
  return count;
}

export function benchMode(value: string | undefined): BenchMode {
  if (value !== 'distributed' && value !== 'standalone') {
    throw new Error('--mode: distributed or standalone');
  }
  return value;
}

/** The load average now, for the record of a run. */
export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

/** The machine line of a docs/benchmarks.md entry, and the commit it measured. */
export function machine(loadBefore: string, when: string): { commit: string; line: string } {
  const commit = execSync('git rev-parse --short HEAD', { cwd: root }).toString().trim();
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const gib = Math.round(totalmem() / 2 ** 30);
  return {
    commit,
    line: `Machine: ${cpu}, ${cpus().length} cores, ${gib} GiB; load average before ${when} ${loadBefore}.`,
  };
}

/** A new folder name under `~/.cache/underdog/bench-logs` (UNDERDOG_CACHE moves it). */
export function logFolder(prefix = ''): string {
  return join(
    process.env.UNDERDOG_CACHE ?? join(homedir(), '.cache', 'underdog'),
    'bench-logs',
    `${prefix}${new Date().toISOString().replace(/[:.]/g, '-')}`,
  );
}

/**
 * Appends a run's entry to today's file of the benchmarks' history,
 * `docs/benchmarks/YYYY-MM-DD.md` (UTC), started with its title when it is the day's first;
 * docs/benchmarks.md keeps today's figures and links the history. The file is then formatted
 * as `npm test`'s prettier check wants it (its tables aligned), so a recorded run never fails lint.
 */
export async function appendToBenchmarks(text: string, now = new Date()): Promise<string> {
  const day = now.toISOString().slice(0, 10);
  const file = join(root, 'docs', 'benchmarks', `${day}.md`);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      `# Benchmarks, ${day}\n\nThe runs of ${day}, as they were recorded. Today's figures: ` +
        `[docs/benchmarks.md](../benchmarks.md).\n`,
    );
  }
  appendFileSync(file, text);
  const options = (await resolveConfig(file)) ?? {};
  writeFileSync(file, await format(readFileSync(file, 'utf8'), { ...options, filepath: file }));
  return file;
}
