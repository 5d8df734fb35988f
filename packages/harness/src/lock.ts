import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';

/**
 * A held lock's directory is touched this often; one untouched for `staleMs` belongs to an owner
 * that died (or froze that long) and is taken over. Generous, for a loaded two-core machine.
 */
const updateMs = 5_000;
const staleMs = 30_000;

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` while holding an exclusive lock at `lockDir`, so that two test runs (or two jest
 * workers) on one machine do not build or fetch the same tool at once: the others wait, then find
 * it done. `proper-lockfile` holds it (an atomic mkdir, kept fresh while `fn` runs); a lock left
 * by a dead process goes stale and is taken over. Waiting longer than `timeoutMs` fails.
 */
export async function withLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  timeoutMs = 30 * 60_000,
): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true });
  // Real time: how long a test run waits for another one, not a rule of the product.
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(lockDir, {
        lockfilePath: lockDir,
        realpath: false,
        stale: staleMs,
        update: updateMs,
        // The default throws from a timer, crashing the worker; the holder fails instead.
        onCompromised: (error) => void (compromised = error),
      });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A stale lock of the harness's older format (a directory with an `owner` file) cannot be
      // removed with rmdir: it is stale already (that is why it was being removed), so clear it.
      if (code === 'ENOTEMPTY') {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (code !== 'ELOCKED') throw error;
    }
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
    const result = await fn();
    if (compromised !== undefined) {
      throw new Error(`the lock ${lockDir} was lost while held: ${compromised.message}`);
    }
    return result;
  } finally {
    if (compromised === undefined) await release();
  }
}
