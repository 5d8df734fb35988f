import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { incrementIfBelow, LiveStoreError, type LiveStore } from '@underdog/store';
import { releaseSlot, windowLeft } from '../src/rate-limiter';

/**
 * The rate limiter's Lua scripts and their TypeScript twins held to one contract (issue 27
 * point 2): every reply of each, with the counter it leaves. Run on the memory store
 * (`rate-limiter-scripts.test.ts`, the twins) and on real Redis (`rate-limiter-scripts.int.test.ts`,
 * the Lua), where random sequences also run on both stores and must agree. `incrementIfBelow`,
 * shared with the auth service's throttle, has its contract in packages/store/test.
 */
export interface RateLimiterScriptsFixture {
  store: LiveStore;
  cleanup(): Promise<void>;
}

export function describeRateLimiterScriptsContract(
  name: string,
  makeFixture: () => Promise<RateLimiterScriptsFixture>,
): void {
  describe(`rate limiter scripts contract (${name})`, () => {
    let fixture: RateLimiterScriptsFixture;
    let store: LiveStore;
    let counter: string;

    beforeEach(async () => {
      fixture = await makeFixture();
      store = fixture.store;
      counter = `contract:${randomUUID()}:counter`;
    });
    afterEach(async () => {
      await store.del(counter);
      await fixture.cleanup();
    });

    const release = () => store.run(releaseSlot, [counter], []);
    const left = () => store.run(windowLeft, [counter], []);

    describe('releaseSlot', () => {
      it('the decremented count while positive, keeping the expiry', async () => {
        await store.set(counter, '2', { ttlMs: 60_000 });
        expect(await release()).toBe(1);
        expect(await release()).toBe(0);
        expect(await store.get(counter)).toBe('0');
        const ttl = await store.ttlMs(counter);
        expect(ttl).toBeGreaterThan(55_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      });

      it('0 on a zero or negative count, leaving it', async () => {
        await store.set(counter, '0');
        expect(await release()).toBe(0);
        expect(await store.get(counter)).toBe('0');
        await store.set(counter, '-3');
        expect(await release()).toBe(0);
        expect(await store.get(counter)).toBe('-3');
      });

      it('0 on a counter that expired, creating nothing', async () => {
        expect(await release()).toBe(0);
        expect(await store.get(counter)).toBeNull();
        expect(await store.ttlMs(counter)).toBe(-2);
      });

      it('0 on a value that is not a number, leaving it', async () => {
        await store.set(counter, 'abc');
        expect(await release()).toBe(0);
        expect(await store.get(counter)).toBe('abc');
      });

      it('rejects with ERR on a positive value that is not an integer, leaving it', async () => {
        await store.set(counter, '2.5');
        const error = await release().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LiveStoreError);
        expect((error as LiveStoreError).code).toBe('ERR');
        expect(await store.get(counter)).toBe('2.5');
      });
    });

    describe('windowLeft', () => {
      it('the milliseconds left in a running window', async () => {
        await store.run(incrementIfBelow, [counter], [5, 60_000]);
        const ms = await left();
        expect(ms).toBeGreaterThan(55_000);
        expect(ms).toBeLessThanOrEqual(60_000);
      });

      it('-1 on a counter without an expiry', async () => {
        await store.set(counter, '1');
        expect(await left()).toBe(-1);
      });

      it('-2 on no counter', async () => {
        expect(await left()).toBe(-2);
      });
    });
  });
}

/** One step on the counter: the limiter's three scripts, or a direct write reaching odd values. */
export type CounterOperation =
  | { kind: 'take'; limit: number; windowMs: number }
  | { kind: 'release' }
  | { kind: 'left' }
  | { kind: 'set'; value: string; ttlMs?: number }
  | { kind: 'del' };

export const counterOperations: fc.Arbitrary<CounterOperation[]> = fc.array(
  fc.oneof(
    {
      arbitrary: fc.record({
        kind: fc.constant('take' as const),
        limit: fc.integer({ min: 0, max: 4 }),
        windowMs: fc.constantFrom(60_000, 120_000),
      }),
      weight: 4,
    },
    { arbitrary: fc.constant({ kind: 'release' as const }), weight: 3 },
    { arbitrary: fc.constant({ kind: 'left' as const }), weight: 2 },
    {
      arbitrary: fc.record(
        {
          kind: fc.constant('set' as const),
          value: fc.constantFrom('0', '1', '3', '-2', 'abc', '2.5'),
          ttlMs: fc.constant(90_000),
        },
        { requiredKeys: ['kind', 'value'] },
      ),
      weight: 1,
    },
    { arbitrary: fc.constant({ kind: 'del' as const }), weight: 1 },
  ),
  { minLength: 1, maxLength: 25 },
);

/**
 * Runs `operations` on one fresh counter; each reply as a code (`take:2`, `release:ERR`,
 * `left:window`, …) and the counter left, so two stores can be compared with `toEqual`.
 * Expiries become `window`/-1/-2: the two stores' clocks differ by the milliseconds between runs.
 */
export async function runCounterOperations(
  store: LiveStore,
  operations: readonly CounterOperation[],
): Promise<{ replies: string[]; value: string | null; ttl: string }> {
  const counter = `sequence:${randomUUID()}`;
  const ttlCode = (ms: number) => (ms > 0 ? 'window' : String(ms));
  const replies: string[] = [];
  const attempt = async (name: string, reply: () => Promise<number | string>) => {
    try {
      replies.push(`${name}:${await reply()}`);
    } catch (error) {
      replies.push(`${name}:${error instanceof LiveStoreError ? error.code : 'THREW'}`);
    }
  };
  try {
    for (const operation of operations) {
      switch (operation.kind) {
        case 'take':
          await attempt('take', () =>
            store.run(incrementIfBelow, [counter], [operation.limit, operation.windowMs]),
          );
          break;
        case 'release':
          await attempt('release', () => store.run(releaseSlot, [counter], []));
          break;
        case 'left':
          await attempt('left', async () => ttlCode(await store.run(windowLeft, [counter], [])));
          break;
        case 'set':
          await store.set(counter, operation.value, { ttlMs: operation.ttlMs });
          break;
        case 'del':
          await store.del(counter);
          break;
      }
    }
    return {
      replies,
      value: await store.get(counter),
      ttl: ttlCode(await store.ttlMs(counter)),
    };
  } finally {
    await store.del(counter);
  }
}
