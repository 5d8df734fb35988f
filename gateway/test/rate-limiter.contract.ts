import { isAppError } from '@underdog/kit';
import type { LiveStore } from '@underdog/store';
import { KnownLoginSources, loginSources } from '../src/known-login-sources';
import { RateLimiter, type RateLimitBucket } from '../src/rate-limiter';

export interface RateLimiterFixture {
  store: LiveStore;
  /** Lets `ms` pass for the store's expiries (a fake clock, or real time). */
  wait(ms: number): Promise<void>;
  /** Window length that `wait` can cover quickly: whole seconds. */
  windowMs: number;
  cleanup(): Promise<void>;
}

let counter = 0;
const uniqueKey = (name: string) => `${name}:${Date.now()}:${(counter += 1)}`;

async function refused(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the rate limiter to refuse');
}

/** The rate limiter's behaviour, the same on every live store adapter. */
export function describeRateLimiterContract(
  adapter: string,
  createFixture: () => Promise<RateLimiterFixture>,
): void {
  describe(`RateLimiter on the ${adapter} store`, () => {
    let fixture: RateLimiterFixture;
    let limiter: RateLimiter;
    const bucket = (name: string, limit: number): RateLimitBucket => ({
      key: uniqueKey(name),
      rule: { limit, windowMs: fixture.windowMs },
    });

    beforeEach(async () => {
      fixture = await createFixture();
      limiter = new RateLimiter(fixture.store, 'test:ratelimit');
    });
    afterEach(() => fixture.cleanup());

    it('lets `limit` hits through per window, then refuses with 429 RATE_LIMITED', async () => {
      const ip = bucket('login:ip', 3);
      for (let i = 0; i < 3; i += 1) await limiter.take([ip]);
      const error = await refused(limiter.take([ip]));
      expect(isAppError(error) && error.status).toBe(429);
      expect(error).toMatchObject({
        code: 'RATE_LIMITED',
        message: 'Too many attempts. Please try again later.',
      });
    });

    it('says when to retry: the seconds left in the full window, at least 1', async () => {
      const ip = bucket('login:ip', 1);
      await limiter.take([ip]);
      const error = await refused(limiter.take([ip]));
      const retryAfter = isAppError(error) ? error.retryAfterSeconds : undefined;
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(fixture.windowMs / 1000));
    });

    it('opens a fresh window once the first one has passed', async () => {
      const ip = bucket('login:ip', 1);
      await limiter.take([ip]);
      await expect(limiter.take([ip])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await fixture.wait(fixture.windowMs + 50);
      await expect(limiter.take([ip])).resolves.toBeDefined();
    });

    it('counts each key on its own', async () => {
      const first = bucket('register:ip', 1);
      const second = bucket('register:ip', 1);
      await limiter.take([first]);
      await expect(limiter.take([second])).resolves.toBeDefined();
    });

    it('takes from every bucket or from none: a full one gives the others their slot back', async () => {
      const account = bucket('login:account', 2);
      const ip = bucket('login:ip', 1);
      await limiter.take([ip]);
      await expect(limiter.take([account, ip])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await expect(limiter.take([account, ip])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // Both refused attempts gave the account slot back: it still has its two.
      await limiter.take([account]);
      await limiter.take([account]);
      await expect(limiter.take([account])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    });

    it('gives a released slot back, once however often release is called', async () => {
      const account = bucket('login:account', 2);
      const slots = await limiter.take([account]);
      await limiter.take([account]);
      await slots.release();
      await slots.release();
      await limiter.take([account]);
      await expect(limiter.take([account])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    });

    it('does not turn a release after the window into extra allowance', async () => {
      const account = bucket('login:account', 1);
      const slots = await limiter.take([account]);
      await fixture.wait(fixture.windowMs + 50);
      await slots.release();
      await limiter.take([account]);
      await expect(limiter.take([account])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    });

    it('does not count a refused hit: a slot released after it can be taken again', async () => {
      const account = bucket('login:account', 2);
      const first = await limiter.take([account]);
      await limiter.take([account]);
      await expect(limiter.take([account])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await expect(limiter.take([account])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await first.release();
      await limiter.take([account]);
      await expect(limiter.take([account])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    });

    it('refuses a rule it cannot keep: a window of part of a second, a limit not whole', async () => {
      const key = uniqueKey('login:ip');
      await expect(limiter.take([{ key, rule: { limit: 1, windowMs: 1_500 } }])).rejects.toThrow(
        RangeError,
      );
      await expect(limiter.take([{ key, rule: { limit: 1.5, windowMs: 1_000 } }])).rejects.toThrow(
        RangeError,
      );
    });

    it('lets no more than `limit` of many parallel hits through', async () => {
      const ip = bucket('login:ip', 5);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, () => limiter.take([ip])),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
    });
  });

  describe(`KnownLoginSources on the ${adapter} store`, () => {
    let fixture: RateLimiterFixture;
    let sources: KnownLoginSources;
    beforeEach(async () => {
      fixture = await createFixture();
      sources = new KnownLoginSources(fixture.store, fixture.windowMs);
    });
    afterEach(() => fixture.cleanup());

    it('knows the sources an account signed in from, and only for that account', async () => {
      const account = uniqueKey('account');
      const origin = { ip: '198.51.100.7', deviceId: 'phone-1' };
      expect(await sources.knownOf(account, loginSources(origin))).toBeUndefined();

      await sources.remember(account, loginSources(origin));

      const [device, address] = loginSources(origin);
      expect(await sources.knownOf(account, loginSources(origin))).toBe(device);
      expect(
        await sources.knownOf(account, loginSources({ ip: origin.ip, deviceId: 'laptop' })),
      ).toBe(address);
      expect(
        await sources.knownOf(account, loginSources({ ip: '203.0.113.9', deviceId: 'x' })),
      ).toBeUndefined();
      expect(await sources.knownOf(uniqueKey('other'), loginSources(origin))).toBeUndefined();
    });

    it('knows an IPv6 source by its /64: the same host with a rotated address is still known', async () => {
      const account = uniqueKey('account');
      await sources.remember(account, loginSources({ ip: '2001:db8:5:7:1::1', deviceId: '' }));
      const [address] = loginSources({ ip: '2001:db8:5:7:abcd::9', deviceId: '' });
      expect(
        await sources.knownOf(account, loginSources({ ip: '2001:db8:5:7:abcd::9', deviceId: '' })),
      ).toBe(address);
      expect(
        await sources.knownOf(account, loginSources({ ip: '2001:db8:5:8::1', deviceId: '' })),
      ).toBeUndefined();
    });

    it('forgets a source once its period passes without a sign-in from it', async () => {
      const account = uniqueKey('account');
      const origin = { ip: '198.51.100.8', deviceId: 'phone-2' };
      await sources.remember(account, loginSources(origin));
      await fixture.wait(fixture.windowMs + 50);
      expect(await sources.knownOf(account, loginSources(origin))).toBeUndefined();
    });
  });
}
