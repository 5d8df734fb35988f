import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  defineScript,
  incrementIfBelow,
  LiveStoreError,
  MEMBERS_PER_STEP,
  type LiveStore,
} from '../src';

export interface LiveStoreFixture {
  store: LiveStore;
  /** Another client of the same data, as a second replica would hold. */
  connectAnother(): Promise<LiveStore>;
  /** Closes every client the fixture opened and removes what the test wrote. */
  cleanup(): Promise<void>;
  /** How many replicas the store's server has (default 0: a lone server, or the memory store). */
  replicas?: number;
  /**
   * Lets `ms` of the store's time pass: the memory store's clock is the test's, moved at once;
   * a real server's TTLs run on its own clock, so the default waits them out.
   */
  passTime?(ms: number): Promise<void>;
}

// Short enough to keep the suite fast, long enough that a busy machine does not expire a key
// on a real server between writing it and checking that it is still there.
const TTL_MS = 100;
const PAST_TTL_MS = TTL_MS + 150;

const replyShapes = defineScript<ScriptReplyShapes>({
  name: 'contractReplyShapes',
  lua: `return { 7, 'seven', 3.9, -0.5, ARGV[1], nil, 'after nil' }`,
  memory: (_redis, _keys, [first = '']) => [7, 'seven', 3.9, -0.5, first, null, 'after nil'],
});
type ScriptReplyShapes = Array<number | string | null>;

const nothing = defineScript<null>({
  name: 'contractNothing',
  lua: `return false`,
  memory: () => null,
});

const argumentTypes = defineScript<string>({
  name: 'contractArgumentTypes',
  lua: `return type(ARGV[1]) .. ':' .. ARGV[1] .. ',' .. type(ARGV[2]) .. ':' .. ARGV[2]`,
  memory: (_redis, _keys, [first = '', second = '']) =>
    `${typeof first}:${first},${typeof second}:${second}`,
});

const refuse = defineScript<number>({
  name: 'contractRefuse',
  lua: `return redis.error_reply('ROUND_CLOSED voting has ended')`,
  memory: () => {
    throw new LiveStoreError('ROUND_CLOSED voting has ended');
  },
});

const readString = defineScript<string | null>({
  name: 'contractReadString',
  lua: `return redis.call('GET', KEYS[1])`,
  memory: (redis, [key = '']) => redis.get(key),
});

/** Two steps that are only correct together: remember the voter, count the vote. */
const voteOnce = defineScript<number>({
  name: 'contractVoteOnce',
  lua: `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
return 1
`,
  memory: (redis, [voters = '', tally = ''], [user = '', image = '']) => {
    if (redis.sAdd(voters, user) === 0) return 0;
    redis.hIncrBy(tally, image, 1);
    return 1;
  },
});

/** `count` distinct user ids, `user:<tag>:<n>`. */
const userIds = (tag: string, count: number): string[] =>
  Array.from({ length: count }, (_, n) => `user:${tag}:${n}`);

/** Everything a scan yields, and the size of each chunk it yielded. */
async function collect<T>(chunks: AsyncIterable<T[]>): Promise<{ items: T[]; sizes: number[] }> {
  const items: T[] = [];
  const sizes: number[] = [];
  for await (const chunk of chunks) {
    sizes.push(chunk.length);
    items.push(...chunk);
  }
  return { items, sizes };
}

/** What `seen` lacks of `expected`, holds beyond it, and holds twice: all [] when exact. */
function discrepancies(seen: readonly string[], expected: readonly string[]) {
  const wanted = new Set(expected);
  const counted = new Map<string, number>();
  for (const item of seen) counted.set(item, (counted.get(item) ?? 0) + 1);
  return {
    missing: expected.filter((item) => !counted.has(item)),
    extra: [...counted.keys()].filter((item) => !wanted.has(item)),
    twice: [...counted].filter(([, count]) => count > 1).map(([item]) => item),
  };
}

const exact = { missing: [], extra: [], twice: [] };

/** The code of the `LiveStoreError` the command rejects with. */
async function rejectionCode(command: Promise<unknown>): Promise<string> {
  const error = await command.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(LiveStoreError);
  return (error as LiveStoreError).code;
}

export function describeLiveStoreContract(
  name: string,
  factory: () => Promise<LiveStoreFixture>,
): void {
  describe(`LiveStore contract: ${name}`, () => {
    let fixture: LiveStoreFixture;
    let store: LiveStore;
    let namespace: string;
    const key = (suffix: string): string => `${namespace}${suffix}`;
    const fourClients = async (): Promise<LiveStore[]> => [
      store,
      ...(await Promise.all([1, 2, 3].map(() => fixture.connectAnother()))),
    ];

    const passTime = (ms: number): Promise<void> =>
      fixture.passTime ? fixture.passTime(ms) : sleep(ms);

    beforeEach(async () => {
      namespace = `contract:${randomUUID()}:`;
      fixture = await factory();
      store = fixture.store;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    describe('strings', () => {
      it('returns null for a missing key', async () => {
        expect(await store.get(key('missing'))).toBeNull();
      });

      it('stores, overwrites and reads values, numbers as decimal strings', async () => {
        expect(await store.set(key('a'), 'first')).toBe(true);
        expect(await store.set(key('a'), 'second')).toBe(true);
        expect(await store.set(key('n'), 42)).toBe(true);
        expect(await store.get(key('a'))).toBe('second');
        expect(await store.get(key('n'))).toBe('42');
      });

      it('writes onlyIfAbsent only when the key is missing', async () => {
        expect(await store.set(key('lock'), 'owner-1', { onlyIfAbsent: true })).toBe(true);
        expect(await store.set(key('lock'), 'owner-2', { onlyIfAbsent: true })).toBe(false);
        expect(await store.get(key('lock'))).toBe('owner-1');
      });

      it('treats an expired key as absent for onlyIfAbsent', async () => {
        await store.set(key('lock'), 'owner-1', { ttlMs: TTL_MS, onlyIfAbsent: true });
        await passTime(PAST_TTL_MS);
        expect(await store.set(key('lock'), 'owner-2', { onlyIfAbsent: true })).toBe(true);
        expect(await store.get(key('lock'))).toBe('owner-2');
      });

      it('expires a value written with ttlMs', async () => {
        await store.set(key('session'), 'user-1', { ttlMs: TTL_MS });
        const left = await store.ttlMs(key('session'));
        expect(left).toBeGreaterThan(0);
        expect(left).toBeLessThanOrEqual(TTL_MS);
        expect(await store.get(key('session'))).toBe('user-1');
        await passTime(PAST_TTL_MS);
        expect(await store.get(key('session'))).toBeNull();
        expect(await store.ttlMs(key('session'))).toBe(-2);
      });

      it('clears the expiry on a plain set and keeps it with keepTtl', async () => {
        await store.set(key('plain'), 'v1', { ttlMs: 10_000 });
        await store.set(key('plain'), 'v2');
        expect(await store.ttlMs(key('plain'))).toBe(-1);

        await store.set(key('kept'), 'v1', { ttlMs: 10_000 });
        await store.set(key('kept'), 'v2', { keepTtl: true });
        expect(await store.ttlMs(key('kept'))).toBeGreaterThan(9_000);
        expect(await store.get(key('kept'))).toBe('v2');
      });

      it('refuses a ttl that is not a positive integer', async () => {
        expect(await rejectionCode(store.set(key('a'), 'v', { ttlMs: 0 }))).toBe('ERR');
        expect(await rejectionCode(store.set(key('a'), 'v', { ttlMs: -5 }))).toBe('ERR');
        expect(await rejectionCode(store.set(key('a'), 'v', { ttlMs: 1.5 }))).toBe('ERR');
        expect(await rejectionCode(store.set(key('a'), 'v', { ttlMs: 100, keepTtl: true }))).toBe(
          'ERR',
        );
        expect(await store.get(key('a'))).toBeNull();
      });

      it('increments integers, starting a missing key at 0', async () => {
        expect(await store.incrBy(key('count'), 1)).toBe(1);
        expect(await store.incrBy(key('count'), 5)).toBe(6);
        expect(await store.incrBy(key('count'), -10)).toBe(-4);
        expect(await store.get(key('count'))).toBe('-4');
      });

      it('keeps the expiry of a counter it increments', async () => {
        await store.set(key('count'), 1, { ttlMs: 10_000 });
        await store.incrBy(key('count'), 1);
        expect(await store.ttlMs(key('count'))).toBeGreaterThan(9_000);
      });

      it('refuses to increment a value that is not an integer', async () => {
        await store.set(key('word'), 'abc');
        await store.set(key('decimal'), '1.5');
        expect(await rejectionCode(store.incrBy(key('word'), 1))).toBe('ERR');
        expect(await rejectionCode(store.incrBy(key('decimal'), 1))).toBe('ERR');
        expect(await rejectionCode(store.incrBy(key('count'), 1.5))).toBe('ERR');
        expect(await store.get(key('word'))).toBe('abc');
      });
    });

    describe('keys and expiry', () => {
      it('deletes keys of every type and counts those that existed', async () => {
        await store.set(key('s'), 'v');
        await store.hSet(key('h'), { f: 'v' });
        await store.sAdd(key('set'), 'm');
        expect(await store.del(key('s'), key('h'), key('set'), key('missing'))).toBe(3);
        expect(await store.del(key('s'))).toBe(0);
        expect(await store.del()).toBe(0);
        expect(await store.get(key('s'))).toBeNull();
      });

      it('reports -2 for a missing key and -1 for a key without expiry', async () => {
        await store.set(key('forever'), 'v');
        expect(await store.ttlMs(key('missing'))).toBe(-2);
        expect(await store.ttlMs(key('forever'))).toBe(-1);
      });

      it('sets an expiry on an existing key and expires it', async () => {
        await store.set(key('a'), 'v');
        expect(await store.expire(key('a'), TTL_MS)).toBe(true);
        expect(await store.ttlMs(key('a'))).toBeGreaterThan(0);
        await passTime(PAST_TTL_MS);
        expect(await store.get(key('a'))).toBeNull();
      });

      it('does not set an expiry on a missing key', async () => {
        expect(await store.expire(key('missing'), 1_000)).toBe(false);
        expect(await store.ttlMs(key('missing'))).toBe(-2);
      });

      it('deletes a key whose expiry is set to zero or less', async () => {
        await store.set(key('a'), 'v');
        await store.hSet(key('h'), { f: 'v' });
        expect(await store.expire(key('a'), 0)).toBe(true);
        expect(await store.expire(key('h'), -1)).toBe(true);
        expect(await store.ttlMs(key('a'))).toBe(-2);
        expect(await store.hGetAll(key('h'))).toEqual({});
      });

      it('expires hashes and sets like strings', async () => {
        await store.hSet(key('h'), { f: 'v' });
        await store.sAdd(key('set'), 'm');
        await store.expire(key('h'), TTL_MS);
        await store.expire(key('set'), TTL_MS);
        await passTime(PAST_TTL_MS);
        expect(await store.hGetAll(key('h'))).toEqual({});
        expect(await store.sCard(key('set'))).toBe(0);
        expect(await store.ttlMs(key('h'))).toBe(-2);
      });
    });

    describe('hashes', () => {
      it('writes fields, counting the new ones, and reads them back', async () => {
        expect(await store.hSet(key('round'), { phase: 'voting', round: 1 })).toBe(2);
        expect(await store.hSet(key('round'), { phase: 'results', deadline: 1700 })).toBe(1);
        expect(await store.hSet(key('round'), {})).toBe(0);
        expect(await store.hGet(key('round'), 'phase')).toBe('results');
        expect(await store.hGet(key('round'), 'missing')).toBeNull();
        expect(await store.hGet(key('missing'), 'phase')).toBeNull();
        expect(await store.hGetAll(key('round'))).toEqual({
          phase: 'results',
          round: '1',
          deadline: '1700',
        });
      });

      it('reads several fields at once, in the order asked, null where missing', async () => {
        await store.hSet(key('ballots'), { ann: 'image-1', bob: 'image-2' });
        expect(await store.hGetMany(key('ballots'), ['bob', 'cy', 'ann'])).toEqual([
          'image-2',
          null,
          'image-1',
        ]);
        expect(await store.hGetMany(key('missing'), ['ann'])).toEqual([null]);
        expect(await store.hGetMany(key('ballots'), [])).toEqual([]);
        // More fields than one step reads, in order across the steps.
        const many = Array.from({ length: MEMBERS_PER_STEP + 5 }, (_, i) => `f${i}`);
        await store.hSet(key('wide'), Object.fromEntries(many.map((f) => [f, f.toUpperCase()])));
        expect(await store.hGetMany(key('wide'), many)).toEqual(many.map((f) => f.toUpperCase()));
      });

      it('returns an empty object for a missing hash', async () => {
        expect(await store.hGetAll(key('missing'))).toEqual({});
      });

      it('increments fields, starting a missing one at 0', async () => {
        expect(await store.hIncrBy(key('tally'), 'image-1', 1)).toBe(1);
        expect(await store.hIncrBy(key('tally'), 'image-1', 2)).toBe(3);
        expect(await store.hIncrBy(key('tally'), 'image-2', -1)).toBe(-1);
        expect(await store.hGetAll(key('tally'))).toEqual({ 'image-1': '3', 'image-2': '-1' });
      });

      it('refuses to increment a field that is not an integer', async () => {
        await store.hSet(key('h'), { name: 'abc' });
        expect(await rejectionCode(store.hIncrBy(key('h'), 'name', 1))).toBe('ERR');
      });

      it('deletes fields and the hash with its last field', async () => {
        await store.hSet(key('h'), { a: '1', b: '2' });
        expect(await store.hDel(key('h'), 'a', 'missing')).toBe(1);
        expect(await store.hDel(key('h'))).toBe(0);
        expect(await store.hDel(key('missing'), 'a')).toBe(0);
        expect(await store.hGetAll(key('h'))).toEqual({ b: '2' });
        expect(await store.hDel(key('h'), 'b')).toBe(1);
        expect(await store.ttlMs(key('h'))).toBe(-2);
      });
    });

    describe('sets', () => {
      it('adds, checks, lists, counts and removes members', async () => {
        expect(await store.sAdd(key('players'), 'ann', 'bob', 'ann')).toBe(2);
        expect(await store.sAdd(key('players'), 'bob', 'cyd')).toBe(1);
        expect(await store.sAdd(key('players'))).toBe(0);
        expect(await store.sIsMember(key('players'), 'bob')).toBe(true);
        expect(await store.sIsMember(key('players'), 'dan')).toBe(false);
        expect((await store.sMembers(key('players'))).sort()).toEqual(['ann', 'bob', 'cyd']);
        expect(await store.sCard(key('players'))).toBe(3);
        expect(await store.sRem(key('players'), 'ann', 'dan')).toBe(1);
        expect(await store.sRem(key('players'))).toBe(0);
        expect(await store.sCard(key('players'))).toBe(2);
      });

      it('answers empty for a missing set', async () => {
        expect(await store.sMembers(key('missing'))).toEqual([]);
        expect(await store.sCard(key('missing'))).toBe(0);
        expect(await store.sIsMember(key('missing'), 'ann')).toBe(false);
        expect(await store.sRem(key('missing'), 'ann')).toBe(0);
      });

      it('deletes the set with its last member', async () => {
        await store.sAdd(key('players'), 'ann');
        await store.sRem(key('players'), 'ann');
        expect(await store.ttlMs(key('players'))).toBe(-2);
      });
    });

    describe('types', () => {
      it('refuses string commands on a key holding another type', async () => {
        await store.hSet(key('h'), { f: 'v' });
        expect(await rejectionCode(store.get(key('h')))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.incrBy(key('h'), 1))).toBe('WRONGTYPE');
      });

      it('refuses hash commands on a key holding another type', async () => {
        await store.set(key('s'), 'v');
        await store.sAdd(key('set'), 'm');
        expect(await rejectionCode(store.hGet(key('s'), 'f'))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.hSet(key('s'), { f: 'v' }))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.hGetAll(key('set')))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.hIncrBy(key('s'), 'f', 1))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.hDel(key('s'), 'f'))).toBe('WRONGTYPE');
      });

      it('refuses set commands on a key holding another type', async () => {
        await store.set(key('s'), 'v');
        expect(await rejectionCode(store.sAdd(key('s'), 'm'))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.sRem(key('s'), 'm'))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.sIsMember(key('s'), 'm'))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.sMembers(key('s')))).toBe('WRONGTYPE');
        expect(await rejectionCode(store.sCard(key('s')))).toBe('WRONGTYPE');
      });

      it('lets set replace a key of any type', async () => {
        await store.hSet(key('h'), { f: 'v' });
        expect(await store.set(key('h'), 'now a string')).toBe(true);
        expect(await store.get(key('h'))).toBe('now a string');
      });
    });

    describe('replication', () => {
      it('answers at once when asked to wait for no replica', async () => {
        await store.set(key('w'), 'written');
        expect(await store.waitForReplicas(0, 1_000)).toBe(0);
      });

      it('answers how many replicas confirmed the writes, fewer than asked when none can', async () => {
        const replicas = fixture.replicas ?? 0;
        await store.set(key('w'), 'written');
        // One more than there are: WAIT gives up after the timeout with those it has.
        expect(await store.waitForReplicas(replicas + 1, 50)).toBe(replicas);
      });
    });

    describe('scripts', () => {
      it('increments below the cap and answers -1 once it is reached', async () => {
        const results: number[] = [];
        for (let i = 0; i < 4; i += 1) {
          results.push(await store.run(incrementIfBelow, [key('votes')], [3]));
        }
        expect(results).toEqual([1, 2, 3, -1]);
        expect(await store.get(key('votes'))).toBe('3');
      });

      it('starts the window of an incrementIfBelow counter on its first increment', async () => {
        expect(await store.run(incrementIfBelow, [key('rate')], [2, TTL_MS])).toBe(1);
        expect(await store.run(incrementIfBelow, [key('rate')], [2, TTL_MS])).toBe(2);
        expect(await store.run(incrementIfBelow, [key('rate')], [2, TTL_MS])).toBe(-1);
        await passTime(PAST_TTL_MS);
        expect(await store.run(incrementIfBelow, [key('rate')], [2, TTL_MS])).toBe(1);
      });

      it('lets exactly cap of 200 concurrent incrementIfBelow calls succeed', async () => {
        const results = await Promise.all(
          Array.from({ length: 200 }, () => store.run(incrementIfBelow, [key('votes')], [50])),
        );
        const successes = results.filter((result) => result !== -1);
        expect(successes).toHaveLength(50);
        expect(new Set(successes).size).toBe(50);
        expect(Math.max(...successes)).toBe(50);
        expect(await store.get(key('votes'))).toBe('50');
      });

      it('lets exactly cap of 200 incrementIfBelow calls from 4 clients succeed', async () => {
        const clients = await fourClients();
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (clients[i % clients.length] ?? store).run(incrementIfBelow, [key('votes')], [50]),
          ),
        );
        expect(results.filter((result) => result !== -1)).toHaveLength(50);
        expect(await store.get(key('votes'))).toBe('50');
      });

      it('counts one vote per user when every user votes many times at once', async () => {
        const clients = await fourClients();
        const users = ['ann', 'bob', 'cyd', 'dan', 'eve'];
        const accepted = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            (clients[i % clients.length] ?? store).run(
              voteOnce,
              [key('voters'), key('tally')],
              [users[i % users.length] ?? '', `image-${i % 3}`],
            ),
          ),
        );
        const tally = Object.values(await store.hGetAll(key('tally'))).map(Number);
        expect(accepted.filter((result) => result === 1)).toHaveLength(users.length);
        expect(tally.reduce((sum, n) => sum + n, 0)).toBe(users.length);
        expect(await store.sCard(key('voters'))).toBe(users.length);
      });

      it("converts results the way Redis converts Lua's", async () => {
        expect(await store.run(replyShapes, [], ['arg'])).toEqual([7, 'seven', 3, 0, 'arg']);
        expect(await store.run(nothing, [], [])).toBeNull();
        expect(await store.run(readString, [key('missing')], [])).toBeNull();
      });

      it('hands arguments to scripts as strings', async () => {
        expect(await store.run(argumentTypes, [], [12, 'x'])).toBe('string:12,string:x');
      });

      it('rejects with the code a script raised', async () => {
        expect(await rejectionCode(store.run(refuse, [], []))).toBe('ROUND_CLOSED');
      });

      it('rejects with WRONGTYPE when a script touches a key of another type', async () => {
        await store.hSet(key('h'), { f: 'v' });
        expect(await rejectionCode(store.run(readString, [key('h')], []))).toBe('WRONGTYPE');
      });

      it('refuses two different scripts under one name', async () => {
        const impostor = defineScript<number>({
          name: incrementIfBelow.name,
          lua: 'return 0',
          memory: () => 0,
        });
        await store.run(incrementIfBelow, [key('votes')], [1]);
        await expect(store.run(impostor, [key('votes')], [])).rejects.toThrow(/two different/);
      });

      it('refuses a script name that is not an identifier', () => {
        expect(() =>
          defineScript({ name: 'not a name', lua: 'return 1', memory: () => 1 }),
        ).toThrow(/letters, digits and underscores/);
      });
    });

    describe('lists and scans as large as an audience', () => {
      // Each boundary: one step exactly full, one item into a second step, several steps.
      const sizes = [MEMBERS_PER_STEP, MEMBERS_PER_STEP + 1, 25_000];

      it.each(sizes)(
        'removes %i members listed at once and leaves exactly the others',
        async (count) => {
          const alive = key('alive');
          const everyone = userIds('a', count + 3);
          const out = everyone.slice(0, count);
          expect(await store.sAddMembers(alive, everyone)).toBe(count + 3);
          // Ids never in the set count for nothing.
          expect(await store.sRemMembers(alive, [...out, ...userIds('never', 2)])).toBe(count);
          expect(await store.sCard(alive)).toBe(3);
          expect((await store.sMembers(alive)).sort()).toEqual(everyone.slice(count).sort());
        },
      );

      it('adds members listed at once, counting only the new ones', async () => {
        const alive = key('alive');
        await store.sAdd(alive, 'user:a:0', 'user:a:1');
        expect(await store.sAddMembers(alive, userIds('a', 25_000))).toBe(24_998);
        expect(await store.sCard(alive)).toBe(25_000);
      });

      it('removes a long spread list of members with sRem', async () => {
        const alive = key('alive');
        const everyone = userIds('a', MEMBERS_PER_STEP + 2);
        await store.sAddMembers(alive, everyone);
        expect(await store.sRem(alive, ...everyone.slice(1))).toBe(MEMBERS_PER_STEP + 1);
        expect(await store.sMembers(alive)).toEqual(['user:a:0']);
      });

      it('writes and deletes more fields than one step holds', async () => {
        const ballots = key('ballots');
        const users = userIds('b', MEMBERS_PER_STEP + 1);
        const fields = Object.fromEntries(users.map((user, n) => [user, `image-${n % 4}`]));
        expect(await store.hSet(ballots, fields)).toBe(MEMBERS_PER_STEP + 1);
        expect(await store.hGet(ballots, users.at(-1)!)).toBe(`image-${MEMBERS_PER_STEP % 4}`);
        expect(await store.hDel(ballots, ...users.slice(1))).toBe(MEMBERS_PER_STEP);
        expect(await store.hGetAll(ballots)).toEqual({ 'user:b:0': 'image-0' });
      });

      it('deletes more keys than one step holds', async () => {
        const keys = userIds('k', MEMBERS_PER_STEP + 1).map(key);
        await Promise.all(keys.map((name) => store.set(name, 1)));
        expect(await store.del(...keys, key('missing'))).toBe(MEMBERS_PER_STEP + 1);
        expect(await store.get(keys.at(-1)!)).toBeNull();
      });

      it.each([...sizes, 3])(
        'scans a set of %i members: each once, in bounded chunks',
        async (count) => {
          const alive = key('alive');
          const everyone = userIds('s', count);
          await store.sAddMembers(alive, everyone);
          const { items, sizes: chunkSizes } = await collect(store.sScan(alive));
          expect(discrepancies(items, everyone)).toEqual(exact);
          expect(chunkSizes.filter((size) => size < 1 || size > MEMBERS_PER_STEP)).toEqual([]);
        },
      );

      it.each([...sizes, 3])(
        'scans a hash of %i fields: each once with its value',
        async (count) => {
          const ballots = key('ballots');
          const users = userIds('h', count);
          await store.hSet(
            ballots,
            Object.fromEntries(users.map((user) => [user, `vote-of-${user}`])),
          );
          const { items, sizes: chunkSizes } = await collect(store.hScan(ballots));
          expect(
            discrepancies(
              items.map(([field]) => field),
              users,
            ),
          ).toEqual(exact);
          expect(items.filter(([field, value]) => value !== `vote-of-${field}`)).toEqual([]);
          expect(chunkSizes.filter((size) => size < 1 || size > MEMBERS_PER_STEP)).toEqual([]);
        },
      );

      it('scans nothing from a missing key and refuses a key of another type', async () => {
        expect(await collect(store.sScan(key('missing')))).toEqual({ items: [], sizes: [] });
        expect(await collect(store.hScan(key('missing')))).toEqual({ items: [], sizes: [] });
        await store.set(key('text'), 'x');
        expect(await rejectionCode(collect(store.sScan(key('text'))))).toBe('WRONGTYPE');
        expect(await rejectionCode(collect(store.hScan(key('text'))))).toBe('WRONGTYPE');
      });

      it('scans every member kept throughout once while most others are removed', async () => {
        // Removing most of a set mid-scan shrinks Redis's table, after which SSCAN may return a
        // member it returned before: the scan still yields each one once.
        const alive = key('alive');
        const everyone = userIds('r', 40_000);
        const kept = everyone.filter((_, n) => n % 10 === 0);
        await store.sAddMembers(alive, everyone);
        const seen: string[] = [];
        let removed = false;
        for await (const chunk of store.sScan(alive)) {
          seen.push(...chunk);
          if (!removed) {
            removed = true;
            const keptSet = new Set(kept);
            await store.sRemMembers(
              alive,
              everyone.filter((user) => !keptSet.has(user)),
            );
          }
        }
        const { missing, twice } = discrepancies(seen, kept);
        expect({ missing, twice }).toEqual({ missing: [], twice: [] });
      });
    });

    describe('lifecycle', () => {
      it('answers ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });

      it('rejects commands after close and closes twice without error', async () => {
        await store.close();
        await store.close();
        await expect(store.get(key('a'))).rejects.toThrow();
        await expect(store.ping()).rejects.toThrow();
      });
    });
  });
}
