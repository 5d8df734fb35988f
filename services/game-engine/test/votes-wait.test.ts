import { Writable } from 'node:stream';
import { createLogger, createMetricsRegistry } from '@underdog/kit';
import { VotesWait } from '../src/application/votes-wait';
import { engineMetrics } from '../src/metrics';

/** A round's wait for its votes, as operators see it: a gauge, a histogram, warnings. */
describe('the wait of a close for its votes', () => {
  const setUp = () => {
    const lines: { msg: string; waitedMs?: number }[] = [];
    const logger = createLogger({
      service: 'votes-wait-test',
      level: 'info',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString('utf8')) as { msg: string });
          done();
        },
      }),
    });
    const metrics = engineMetrics(createMetricsRegistry('votes-wait-test'));
    const waiting = async () => (await metrics.roundsAwaitingVotes.get()).values[0]?.value;
    const waits = async () => {
      const { values } = await metrics.votesWait.get();
      const at = (name: string) => values.find((value) => value.metricName === name)?.value;
      return {
        count: at('underdog_votes_wait_seconds_count'),
        sum: at('underdog_votes_wait_seconds_sum'),
      };
    };
    const warnings = () => lines.filter((line) => line.msg.includes('its close waits for them'));
    const readsBehind = async () => (await metrics.votesReadBehind.get()).values[0]?.value;
    return { wait: new VotesWait(metrics, logger), waiting, waits, warnings, readsBehind };
  };
  const facts = { partition: '0', end: '9', applied: '8' };

  it('counts the round as waiting until its votes are applied, and measures the wait', async () => {
    const { wait, waiting, waits } = setUp();
    wait.lagging(1, 0, facts);
    wait.lagging(1, 25, facts);
    expect(await waiting()).toBe(1);
    wait.settled(1, 12_500);
    expect(await waiting()).toBe(0);
    expect(await waits()).toEqual({ count: 1, sum: 12.5 });
  });

  it('measures a close that did not wait as 0', async () => {
    const { wait, waiting, waits } = setUp();
    wait.settled(2, 0);
    expect(await waiting()).toBe(0);
    expect(await waits()).toEqual({ count: 1, sum: 0 });
  });

  it('stops counting a wait its runner gives up (it stopped, or the round moved on elsewhere)', async () => {
    const { wait, waiting } = setUp();
    wait.lagging(3, 0, facts);
    wait.end();
    wait.end();
    expect(await waiting()).toBe(0);
  });

  it('warns now and then while it waits, not at every look', () => {
    const { wait, warnings } = setUp();
    for (let waitedMs = 0; waitedMs <= 12_000; waitedMs += 25) wait.lagging(4, waitedMs, facts);
    expect(warnings().map((line) => line.waitedMs)).toEqual([5_000, 10_000]);
  });

  it('reads a partition itself only once its mark stood still for the bound, one read at a time', async () => {
    const { wait, readsBehind } = setUp();
    // A mark that moves is a consumer at work: never read behind it.
    expect(wait.standsStill(3, 10n, 0, 1_000)).toBe(false);
    expect(wait.standsStill(3, 20n, 900, 1_000)).toBe(false);
    expect(wait.standsStill(3, 30n, 1_800, 1_000)).toBe(false);
    // Standing at 30 since 1,800: not yet at 2,700, then yes at 2,800.
    expect(wait.standsStill(3, 30n, 2_700, 1_000)).toBe(false);
    expect(wait.standsStill(3, 30n, 2_800, 1_000)).toBe(true);
    // A read under way: not a second one.
    expect(wait.standsStill(3, 30n, 5_000, 1_000)).toBe(false);
    expect(await readsBehind()).toBe(1);
    // Done (or failed) and still standing: the bound starts again.
    wait.readBehindDone(3);
    expect(wait.standsStill(3, 30n, 5_100, 1_000)).toBe(false);
    expect(wait.standsStill(3, 30n, 6_100, 1_000)).toBe(true);
    expect(await readsBehind()).toBe(2);
  });
});
