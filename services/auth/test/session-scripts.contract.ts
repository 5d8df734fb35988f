import { randomUUID } from 'node:crypto';
import type { LiveStore } from '@underdog/store';
import { createSessionScript, setClaimsScript, touchSessionScript } from '../src/adapters/sessions';

/**
 * The session store's Lua scripts and their TypeScript twins held to one contract (issue 27
 * point 2): every reply of each script, with the keys and expiries it leaves. Run on the memory
 * store (`session-scripts.test.ts`, the twins) and on real Redis (`session-scripts.int.test.ts`,
 * the Lua), so a twin that drifts from its Lua fails one of the two runs. The game's scripts have
 * theirs in packages/live-game/test, the store's own in packages/store/test.
 */
export interface SessionScriptsFixture {
  store: LiveStore;
  cleanup(): Promise<void>;
}

/** An expiry just set to `ms`: exact on the memory store's fixed clock, a little less on Redis. */
function expectFreshTtl(ttl: number, ms: number): void {
  expect(ttl).toBeLessThanOrEqual(ms);
  expect(ttl).toBeGreaterThan(ms - 5_000);
}

export function describeSessionScriptsContract(
  name: string,
  makeFixture: () => Promise<SessionScriptsFixture>,
): void {
  describe(`auth session scripts contract (${name})`, () => {
    let fixture: SessionScriptsFixture;
    let store: LiveStore;
    let session: string;
    let list: string;

    beforeEach(async () => {
      fixture = await makeFixture();
      store = fixture.store;
      const ns = `contract:${randomUUID()}`;
      session = `${ns}:session`;
      list = `${ns}:user-sessions`;
    });
    afterEach(async () => {
      await store.del(session, list);
      await fixture.cleanup();
    });

    const create = (ttlMs = 60_000, listTtlMs = 600_000) =>
      store.run(
        createSessionScript,
        [session, list],
        ['u1', 'd1', 100, 200, ttlMs, listTtlMs, 'ann', 'user', '1', session],
      );

    describe('createSession', () => {
      it('1, writing the session with its claims and expiry and listing its key, unprefixed, under its user', async () => {
        expect(await create()).toBe(1);
        expect(await store.hGetAll(session)).toEqual({
          userId: 'u1',
          deviceId: 'd1',
          createdAt: '100',
          lastSeenAt: '200',
          username: 'ann',
          role: 'user',
          verified: '1',
        });
        expectFreshTtl(await store.ttlMs(session), 60_000);
        expect(await store.sMembers(list)).toEqual([session]);
        expectFreshTtl(await store.ttlMs(list), 600_000);
      });

      it('1 again over an existing session, rewriting it and keeping one list entry', async () => {
        await store.sAdd(list, 'other');
        await create(60_000, 600_000);
        expect(await create(30_000, 900_000)).toBe(1);
        expect(await store.hGet(session, 'lastSeenAt')).toBe('200');
        expectFreshTtl(await store.ttlMs(session), 30_000);
        expect((await store.sMembers(list)).sort()).toEqual(['other', session].sort());
        expectFreshTtl(await store.ttlMs(list), 900_000);
      });
    });

    describe('touchSession', () => {
      it('1 on a live session, recording the use and setting the new expiry', async () => {
        await create(60_000);
        expect(await store.run(touchSessionScript, [session], [900, 30_000])).toBe(1);
        expect(await store.hGet(session, 'lastSeenAt')).toBe('900');
        expect(await store.hGet(session, 'createdAt')).toBe('100');
        expectFreshTtl(await store.ttlMs(session), 30_000);
      });

      it('0 on a deleted session, bringing nothing back', async () => {
        await create();
        await store.del(session);
        expect(await store.run(touchSessionScript, [session], [900, 30_000])).toBe(0);
        expect(await store.hGetAll(session)).toEqual({});
        expect(await store.ttlMs(session)).toBe(-2);
      });
    });

    describe('setSessionClaims', () => {
      it('1 on a live session, rewriting only the claims and keeping the expiry', async () => {
        await create(60_000);
        expect(await store.run(setClaimsScript, [session], ['bob', 'admin', '0'])).toBe(1);
        expect(await store.hGetAll(session)).toEqual({
          userId: 'u1',
          deviceId: 'd1',
          createdAt: '100',
          lastSeenAt: '200',
          username: 'bob',
          role: 'admin',
          verified: '0',
        });
        expectFreshTtl(await store.ttlMs(session), 60_000);
      });

      it('0 on a deleted session, bringing nothing back', async () => {
        expect(await store.run(setClaimsScript, [session], ['bob', 'admin', '0'])).toBe(0);
        expect(await store.hGetAll(session)).toEqual({});
        expect(await store.ttlMs(session)).toBe(-2);
      });
    });
  });
}
