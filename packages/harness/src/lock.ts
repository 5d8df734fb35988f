import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A lock directory whose owner file has not appeared after this long belongs to a crashed owner. */
const ownerlessGraceMs = 30_000;

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockIsStale(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, 'owner'), 'utf8').trim());
    return !Number.isInteger(pid) || pid <= 0 || !isAlive(pid);
  } catch {
    try {
      return Date.now() - statSync(lockDir).mtimeMs > ownerlessGraceMs;
    } catch {
      return false;
    }
  }
}

function tryAcquire(lockDir: string): boolean {
  try {
    // mkdir is atomic on every local file system, so exactly one process wins.
    mkdirSync(lockDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (lockIsStale(lockDir)) rmSync(lockDir, { recursive: true, force: true });
    return false;
  }
  writeFileSync(join(lockDir, 'owner'), String(process.pid));
  return true;
}

/**
 * Runs `fn` while holding an exclusive lock at `lockDir`, so that two test runs on one machine do
 * not build the same tool at once. A lock left by a dead process is taken over.
 */
export async function withLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  timeoutMs = 30 * 60_000,
): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  while (!tryAcquire(lockDir)) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for the lock ${lockDir}`);
    }
    if (!announced) {
      console.error(`harness: waiting for another process to release ${lockDir}`);
      announced = true;
    }
    await sleep(500);
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
