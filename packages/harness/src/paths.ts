import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The monorepo root, from this file's place in packages/harness/src. */
export const repoRoot = resolve(__dirname, '..', '..', '..');

/**
 * Built tools live outside the repo so that fresh clones and other worktrees on the same
 * machine reuse them.
 */
export function cacheRoot(): string {
  const fromEnv = process.env.UNDERDOG_CACHE;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'underdog');
}

export function infraDir(...parts: string[]): string {
  return join(cacheRoot(), 'infra', ...parts);
}
