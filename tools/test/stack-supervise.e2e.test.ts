import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import { waitFor } from '@underdog/test-support';
import { startStack, type Stack } from '../stack/stack';

/**
 * `npm run stack -- --supervise`: a process of the stack that crashes is started again and the
 * stack keeps running, as Kubernetes restarts a crashed container.
 */
describe('the supervised stack', () => {
  let stack: Stack;
  const exits: string[] = [];
  const restarts: string[] = [];

  beforeAll(async () => {
    stack = await startStack({
      infra: testInfra(),
      logDir: mkdtempSync(join(tmpdir(), 'underdog-stack-')),
      supervise: true,
      restartDelayMs: () => 200,
      onUnexpectedExit: (name, code) => exits.push(`${name} exited with ${code}`),
      onRestart: (instance) => restarts.push(instance),
    });
    await stack.waitUntilReady(120_000);
  }, 150_000);

  afterAll(() => stack?.stop());

  it('restarts a process killed with SIGKILL, which answers /readyz again', async () => {
    const ads = stack.processes.find((p) => p.name === 'ads')!;
    const killedPid = ads.pid;
    process.kill(killedPid, 'SIGKILL');
    await waitFor(() => restarts.includes('ads'), 'the restart of ads');
    await waitFor(() => ads.pid !== killedPid && ads.pid > 0, 'a new ads process');
    await stack.waitUntilReady(60_000);
    expect(exits).toEqual(['ads exited with null']);
    expect(stack.processes.filter((p) => p.name !== 'ads').every((p) => p.pid > 0)).toBe(true);
  }, 90_000);
});
