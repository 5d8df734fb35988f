import { createServer, connect, type Server, type Socket } from 'node:net';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '@underdog/harness';
import { eventually, waitFor } from '@underdog/test-support';
import { createRedisStore, incrementIfBelow, type LiveStore } from '../src';

/**
 * The Redis adapter through Sentinel: a primary, a replica and one Sentinel of the test's own.
 * The primary is killed; the Sentinel promotes the replica and the same store goes on there.
 */
describe('redis store through Sentinel', () => {
  let group: RedisSentinelGroup;
  let store: LiveStore;

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 1, sentinels: 1 });
    store = await createRedisStore({
      // Only the credentials and database of the URL count; the Sentinel names the primary.
      url: 'redis://127.0.0.1:1/0',
      sentinel: { sentinels: group.sentinels, name: group.name },
    });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await group?.stop();
  });

  it('waits for the replica to confirm a write (WAIT)', async () => {
    expect(await store.set('waited', 'for the replica')).toBe(true);
    // The replica is connected and streaming: it confirms well within the timeout.
    expect(await store.waitForReplicas(1, 4_000)).toBe(1);
    // There is one replica: asking for two answers the one there is once the timeout has passed.
    expect(await store.waitForReplicas(2, 50)).toBe(1);
  }, 30_000);

  it('refuses a WAIT its command timeout would cut off before Redis answered', async () => {
    await expect(store.waitForReplicas(1, 5_000)).rejects.toThrow(
      'timeoutMs must be below the command timeout (5000 ms), got 5000',
    );
  });

  it('follows the primary the Sentinels promote when the old one is killed', async () => {
    expect(await store.set('before', 'failover')).toBe(true);
    expect(await store.run(incrementIfBelow, ['counter'], [100])).toBe(1);
    // Replication is asynchronous: the kill comes once the replica has both writes.
    await group.replicated();

    const killed = await group.killPrimary();
    const promoted = await eventually(
      () => group.primaryNow().catch(() => killed),
      (port) => port !== killed,
      'the Sentinel to promote the replica',
      30_000,
    );
    expect(promoted).not.toBe(killed);

    // The same store, no restart: commands and scripts (loaded anew on the new primary) go on.
    const counted = await eventually(
      () => store.run(incrementIfBelow, ['counter'], [100]).catch(() => 0),
      (value) => value > 0,
      'a script on the new primary',
      30_000,
    );
    expect(counted).toBe(2);
    expect(await store.get('before')).toBe('failover');
  }, 90_000);
});

/**
 * A TCP proxy to a Sentinel that can hold new connections: accepted, but nothing is forwarded
 * until `release`, as a Sentinel that is slow to answer. Connections made before `hold` flow on.
 */
async function startHoldingProxy(target: { host: string; port: number }): Promise<{
  port: number;
  hold(): void;
  release(): void;
  /** How many new connections wait for `release`. */
  held(): number;
  /** How many connections made before `hold` have closed since. */
  closedSinceHold(): number;
  close(): Promise<void>;
}> {
  let holding = false;
  let closedSinceHold = 0;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const openedHolding = holding;
    client.on('close', () => {
      sockets.delete(client);
      if (holding && !openedHolding) closedSinceHold += 1;
    });
    client.on('error', () => undefined);
    const pipe = () => {
      const upstream = connect(target.port, target.host);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    };
    if (holding) {
      client.pause();
      held.push(pipe);
    } else pipe();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');
  return {
    port: address.port,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const pipe of held.splice(0)) pipe();
    },
    held: () => held.length,
    closedSinceHold: () => closedSinceHold,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * ioredis ends a client for good when a reconnect attempt's connector throws: here the failover
 * is announced (+switch-master) while the attempt is still waiting for a Sentinel's answer, which
 * then comes too late ("Connection is closed."). The store connects again and goes on.
 */
describe('redis store through Sentinel, a failover announced while it asks a slow Sentinel', () => {
  let group: RedisSentinelGroup;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  let store: LiveStore;
  const connectionErrors: string[] = [];

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 1, sentinels: 1, name: 'slow' });
    const [sentinel] = group.sentinels;
    if (!sentinel) throw new Error('no Sentinel');
    proxy = await startHoldingProxy(sentinel);
    store = await createRedisStore({
      url: 'redis://127.0.0.1:1/0',
      onConnectionError: (error) => connectionErrors.push(error.message),
      // The proxy first: the store asks it first; the failover detector also listens directly.
      sentinel: {
        sentinels: [{ host: '127.0.0.1', port: proxy.port }, sentinel],
        name: group.name,
      },
    });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await group?.stop();
  });

  it('connects again after ioredis ended its client, and goes on on the new primary', async () => {
    expect(await store.set('before', 'failover')).toBe(true);
    await group.replicated();

    proxy.hold();
    const killed = await group.killPrimary();
    await eventually(
      () => group.primaryNow().catch(() => killed),
      (port) => port !== killed,
      'the Sentinel to promote the replica',
      30_000,
    );
    // The markers: the reconnect attempt waits for the held Sentinel, and the store's failover
    // detector, told of the failover (+switch-master), has cancelled it: dropping its Sentinel
    // connections is the first thing it does, and the one it made through the proxy closes.
    // Only then does the held Sentinel answer, too late for that attempt, and ioredis ends its
    // client (the store says so) for the store to connect again.
    await waitFor(
      () => proxy.held() > 0 && proxy.closedSinceHold() > 0,
      "the reconnect attempt held and the failover detector's Sentinel connections dropped",
    );
    proxy.release();

    const value = await eventually(
      () => store.get('before').catch(() => null),
      (got) => got !== null,
      'the store to answer on the new primary',
      20_000,
    );
    expect(value).toBe('failover');
    // The case this test is about happened: ioredis ended its client, the store connected again.
    expect(connectionErrors).toContain('the Redis client ended; connecting again');
  }, 90_000);
});

/**
 * A stalled primary (SIGSTOP: its sockets open, nothing answered), the Sentinels promote the
 * replica. ioredis hears of it (+switch-master) and closes its connection to the old primary,
 * which never answers the close: only once that connection is destroyed does it reconnect
 * through the Sentinels. With ioredis' default (2 s) every call failed for 2 s after the promotion
 * (the fault suite's `redis-stop`); the store waits `REDIS_DISCONNECT_TIMEOUT_MS` (200 ms).
 */
describe('redis store through Sentinel, the primary stalled', () => {
  let group: RedisSentinelGroup;
  let store: LiveStore;
  let resume = () => undefined as void;

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 1, sentinels: 1, name: 'stalled' });
    store = await createRedisStore({
      url: 'redis://127.0.0.1:1/0',
      // Short, so that the calls made while the primary is stalled fail quickly.
      commandTimeoutMs: 300,
      sentinel: { sentinels: group.sentinels, name: group.name },
    });
  }, 60_000);

  afterAll(async () => {
    resume();
    await store?.close();
    await group?.stop();
  });

  it('answers on the promoted replica within 1.5 s of the promotion, the old primary still stalled', async () => {
    expect(await store.set('before', 'stall')).toBe(true);
    await group.replicated();

    const paused = await group.pausePrimary();
    resume = paused.resume;
    await eventually(
      () => group.primaryNow().catch(() => paused.port),
      (port) => port !== paused.port,
      'the Sentinel to promote the replica',
      30_000,
    );
    const promotedSeenAt = Date.now();
    const value = await eventually(
      () => store.get('before').catch(() => null),
      (got) => got !== null,
      'the store to answer on the new primary',
      20_000,
    );
    const answeredAfterMs = Date.now() - promotedSeenAt;

    expect(value).toBe('stall');
    // Without the short disconnect timeout this is 2 s or more: ioredis' default alone.
    expect(answeredAfterMs).toBeLessThan(1_500);
  }, 90_000);
});
