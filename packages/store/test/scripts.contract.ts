import { randomUUID } from 'node:crypto';
import { incrementIfBelow, LiveStoreError, type LiveStore } from '../src';

/**
 * The store's own scripts and their TypeScript twins (issue 27 point 2): every reply of each,
 * with the key it leaves, on the memory store (`scripts-memory.test.ts`) and on real Redis
 * (`scripts-redis.int.test.ts`). The game's scripts have theirs in packages/live-game/test.
 */
export function describeStoreScriptsContract(
  name: string,
  makeStore: () => Promise<{ store: LiveStore; cleanup(): Promise<void> }>,
): void {
  describe(`store scripts contract (${name})`, () => {
    let store: LiveStore;
    let cleanup: () => Promise<void>;
    let key: string;
    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
      key = `scripts:${randomUUID()}`;
    });
    afterEach(async () => {
      await store.del(key, `${key}:missing`);
      await cleanup();
    });

    describe('incrementIfBelow', () => {
      it('the new value while below the cap, then -1 leaving the counter', async () => {
        expect(await store.run(incrementIfBelow, [key], [2])).toBe(1);
        expect(await store.run(incrementIfBelow, [key], [2])).toBe(2);
        expect(await store.run(incrementIfBelow, [key], [2])).toBe(-1);
        expect(await store.get(key)).toBe('2');
        expect(await store.ttlMs(key)).toBe(-1);
      });

      it('-1 with a cap of 0, creating nothing', async () => {
        expect(await store.run(incrementIfBelow, [key], [0])).toBe(-1);
        expect(await store.get(key)).toBeNull();
      });

      it('starts the expiry on the first increment only', async () => {
        expect(await store.run(incrementIfBelow, [key], [5, 60_000])).toBe(1);
        const ttl = await store.ttlMs(key);
        expect(ttl).toBeGreaterThan(0);
        await store.expire(key, 120_000);
        expect(await store.run(incrementIfBelow, [key], [5, 60_000])).toBe(2);
        expect(await store.ttlMs(key)).toBeGreaterThan(60_000);
      });

      it('rejects with ERR on a value that is not an integer, leaving it', async () => {
        await store.set(key, 'abc');
        const error = await store.run(incrementIfBelow, [key], [5]).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LiveStoreError);
        expect((error as LiveStoreError).code).toBe('ERR');
        expect(await store.get(key)).toBe('abc');
      });
    });
  });
}
