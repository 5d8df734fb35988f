import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  createRedisStore,
  incrementIfBelow,
  MEMBERS_PER_STEP,
  redisClientOf,
  type LiveStore,
} from '../src';
import { describeLiveStoreContract } from './live-store.contract';

const url = process.env.UNDERDOG_TEST_REDIS_URL;
if (!url) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}
const redisUrl: string = url;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** Deletes every key under `prefix`, looking past the adapter so nothing is hidden by it. */
async function deleteKeysUnder(prefix: string): Promise<void> {
  const admin = new Redis(redisUrl, { lazyConnect: true });
  await admin.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await admin.quit();
  }
}

describeLiveStoreContract('redis', async () => {
  const keyPrefix = `underdog-test:${randomUUID()}:`;
  const clients: LiveStore[] = [];
  const connect = async (): Promise<LiveStore> => {
    const client = await createRedisStore({ url: redisUrl, keyPrefix });
    clients.push(client);
    return client;
  };
  return {
    store: await connect(),
    connectAnother: connect,
    cleanup: async () => {
      await Promise.all(clients.map((client) => client.close()));
      await deleteKeysUnder(keyPrefix);
    },
  };
});

describe('redis store', () => {
  it('prefixes plain keys and script KEYS with keyPrefix', async () => {
    const keyPrefix = `underdog-test:${randomUUID()}:`;
    const store = await createRedisStore({ url: redisUrl, keyPrefix });
    const admin = new Redis(redisUrl);
    try {
      await store.set('plain', 'v');
      await store.run(incrementIfBelow, ['counter'], [5]);
      expect(await admin.get(`${keyPrefix}plain`)).toBe('v');
      expect(await admin.get(`${keyPrefix}counter`)).toBe('1');
      expect(await admin.exists('plain', 'counter')).toBe(0);
    } finally {
      await store.close();
      await admin.quit();
      await deleteKeysUnder(keyPrefix);
    }
  });

  it('runs its scripts again after Redis forgot them (NOSCRIPT: a restart, a failover, SCRIPT FLUSH)', async () => {
    // The adapter's scripts are ioredis commands (defineCommand): EVALSHA, and on NOSCRIPT the
    // same call again as EVAL, which loads the script. Nothing to reload by hand.
    const keyPrefix = `underdog-test:${randomUUID()}:`;
    const store = await createRedisStore({ url: redisUrl, keyPrefix });
    const admin = new Redis(redisUrl);
    try {
      expect(await store.run(incrementIfBelow, ['counter'], [5])).toBe(1);
      expect(await store.run(incrementIfBelow, ['counter'], [5])).toBe(2);
      await admin.script('FLUSH');
      expect(await admin.script('EXISTS', sha1(incrementIfBelow.lua))).toEqual([0]);
      expect(await store.run(incrementIfBelow, ['counter'], [5])).toBe(3);
      expect(await admin.script('EXISTS', sha1(incrementIfBelow.lua))).toEqual([1]);
    } finally {
      await store.close();
      await admin.quit();
      await deleteKeysUnder(keyPrefix);
    }
  });

  it(`sends no command carrying more than ${MEMBERS_PER_STEP} members, fields or keys`, async () => {
    // The contract proves the results; this proves the steps: what reaches Redis, command by
    // command, as ioredis is asked to send it.
    const keyPrefix = `underdog-test:${randomUUID()}:`;
    const store = await createRedisStore({ url: redisUrl, keyPrefix });
    const client = redisClientOf(store)!;
    const sent: Array<{ name: string; items: number }> = [];
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command, stream) => {
      // DEL's arguments are all keys; the others have their key first, HSET's items in pairs.
      const { name, args } = command;
      const items = name === 'del' ? args.length : (args.length - 1) / (name === 'hset' ? 2 : 1);
      sent.push({ name, items });
      return send(command, stream);
    };
    try {
      const ids = Array.from({ length: 25_000 }, (_, n) => `user:${n}`);
      await store.sAddMembers('alive', ids);
      await store.sRemMembers('alive', ids);
      await store.hSet('ballots', Object.fromEntries(ids.map((id) => [id, 'image'])));
      await store.hDel('ballots', ...ids);
      await store.del(...ids);
      const largest = new Map<string, number>();
      for (const { name, items } of sent)
        largest.set(name, Math.max(largest.get(name) ?? 0, items));
      expect(Object.fromEntries(largest)).toEqual({
        sadd: MEMBERS_PER_STEP,
        srem: MEMBERS_PER_STEP,
        hset: MEMBERS_PER_STEP,
        hdel: MEMBERS_PER_STEP,
        del: MEMBERS_PER_STEP,
      });
    } finally {
      await store.close();
      await deleteKeysUnder(keyPrefix);
    }
  });

  it('fails to start when Redis does not answer', async () => {
    await expect(createRedisStore({ url: 'redis://127.0.0.1:1' })).rejects.toThrow(/ECONNREFUSED/);
  });
});
