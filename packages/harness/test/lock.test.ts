import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withLock } from '../src/lock';

/** The harness lock: one holder at a time (jest workers building one server), dead holders taken over. */
describe('withLock', () => {
  const lockDir = () => join(mkdtempSync(join(tmpdir(), 'underdog-lock-')), 'locks', 'tool.lock');

  it('runs one holder at a time: the second starts only after the first has finished', async () => {
    const dir = lockDir();
    const steps: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstEntered!: () => void;
    const entered = new Promise<void>((resolve) => (firstEntered = resolve));
    const first = withLock(dir, async () => {
      steps.push('first in');
      firstEntered();
      await firstHolds;
      steps.push('first out');
    });
    await entered;
    // The marker: the second says it is waiting; only then is the first released.
    let secondWaits!: () => void;
    const waiting = new Promise<void>((resolve) => (secondWaits = resolve));
    const spy = jest.spyOn(console, 'error').mockImplementation(() => secondWaits());
    const second = withLock(dir, async () => void steps.push('second in'));
    await waiting;
    steps.push('second waits');
    releaseFirst();
    await Promise.all([first, second]);
    spy.mockRestore();
    expect(steps).toEqual(['first in', 'second waits', 'first out', 'second in']);
  });

  it('gives the lock back when the holder throws', async () => {
    const dir = lockDir();
    await expect(withLock(dir, () => Promise.reject(new Error('build failed')))).rejects.toThrow(
      'build failed',
    );
    await expect(withLock(dir, () => Promise.resolve('built'))).resolves.toBe('built');
  });

  it('takes over a lock left by a holder that died (untouched for a long time)', async () => {
    const dir = lockDir();
    mkdirSync(dir, { recursive: true });
    // The older format's owner file, of a process that is gone.
    writeFileSync(join(dir, 'owner'), '999999999');
    const longAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(dir, longAgo, longAgo);
    await expect(withLock(dir, () => Promise.resolve('built'), 5_000)).resolves.toBe('built');
  });

  it('fails naming the lock when it stays held past the timeout', async () => {
    const dir = lockDir();
    let releaseFirst!: () => void;
    const holds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstEntered!: () => void;
    const entered = new Promise<void>((resolve) => (firstEntered = resolve));
    const first = withLock(dir, async () => {
      firstEntered();
      await holds;
    });
    await entered;
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(withLock(dir, () => Promise.resolve(), 0)).rejects.toThrow(dir);
    spy.mockRestore();
    releaseFirst();
    await first;
  });
});
