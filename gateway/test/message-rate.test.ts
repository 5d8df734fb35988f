import { testClock } from '@underdog/test-support';
import { defaultRealtimeLimits } from '../src/realtime/ports';
import { MessageRate } from '../src/realtime/socket-session';

/** A socket's message budget, on the gateway's clock: refills by time the test moves, not waits. */
describe('MessageRate', () => {
  const limits = { ...defaultRealtimeLimits, messagesPerSecond: 2, messageBurst: 3 };

  it('spends the burst, refuses the next message, and refills at its rate as the clock moves', () => {
    const clock = testClock();
    const rate = new MessageRate(limits, clock);
    expect([rate.take(), rate.take(), rate.take(), rate.take()]).toEqual([true, true, true, false]);
    clock.advance(499); // not yet one token back at 2 per second
    expect(rate.take()).toBe(false);
    clock.advance(1);
    expect([rate.take(), rate.take()]).toEqual([true, false]);
    clock.advance(60_000); // never more than the burst
    expect([rate.take(), rate.take(), rate.take(), rate.take()]).toEqual([true, true, true, false]);
  });
});
