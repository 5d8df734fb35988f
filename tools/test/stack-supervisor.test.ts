import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { waitFor } from '@underdog/test-support';
import { restartDelayMs, Supervisor } from '../stack/supervisor';

/** A stand-in for a child process: the test makes it exit. */
function fakeChild(pid: number) {
  const child = new EventEmitter() as EventEmitter & { pid: number };
  child.pid = pid;
  return child;
}

describe("the stack's supervisor", () => {
  it('starts a process again after it exits, with a backoff that grows with each crash in a row', async () => {
    const children: ReturnType<typeof fakeChild>[] = [];
    const restarts: Array<{ code: number | null; delayMs: number; restart: number }> = [];
    const supervisor = new Supervisor({
      start: () => {
        const child = fakeChild(children.length + 1);
        children.push(child);
        return child as unknown as ChildProcess;
      },
      delayMs: (restart) => restart * 10,
      onRestart: ({ code, delayMs, restart }) => restarts.push({ code, delayMs, restart }),
    });
    expect(children).toHaveLength(1);

    children[0]!.emit('exit', 1, null);
    await waitFor(() => children.length === 2, 'the first restart');
    children[1]!.emit('exit', null, 'SIGKILL');
    await waitFor(() => children.length === 3, 'the second restart');
    expect(restarts).toEqual([
      { code: 1, delayMs: 10, restart: 1 },
      { code: null, delayMs: 20, restart: 2 },
    ]);
    expect(supervisor.current).toBe(children[2]);

    // Once stopped, an exit is the expected end of the process, not a crash.
    supervisor.stop();
    children[2]!.emit('exit', 0, null);
    expect(supervisor.restartCount).toBe(2);
    expect(children).toHaveLength(3);
  });

  it('waits 500 ms doubling, up to 30 s, between restarts by default', () => {
    expect([1, 2, 3, 4].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000]);
    expect(restartDelayMs(7)).toBe(30_000);
    expect(restartDelayMs(100)).toBe(30_000);
  });
});
