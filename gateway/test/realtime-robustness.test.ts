import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { AppError } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { waitFor } from '@underdog/test-support';
import fc from 'fast-check';
import WebSocket from 'ws';
import type { LiveGamePort, VoteRequest } from '../src/realtime/ports';
import { encodeGameEvent, gameEvent, images, liveGame } from './game-events';
import { feedOf, graphqlWsClient, openWs, wsUrlOf } from './realtime-clients';
import { startTestGateway, type TestGateway } from './support';

/** Counts votes; a visitor's are refused, as the engine refuses them. */
function countingGames(): LiveGamePort & { votes: VoteRequest[] } {
  const votes: VoteRequest[] = [];
  return {
    votes,
    liveGame: (_origin, tournamentId) => Promise.resolve(liveGame({ tournamentId })),
    async vote(origin, vote) {
      if (!(await origin.session.current())) {
        throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NOT_AUTHENTICATED' });
      }
      votes.push(vote);
      return vote;
    },
  };
}

describe('the real-time edges under hostile and slow clients', () => {
  let gateway: TestGateway;
  let games: ReturnType<typeof countingGames>;
  const maxBufferedBytes = 512 * 1024;

  beforeEach(async () => {
    games = countingGames();
    gateway = await startTestGateway({
      games,
      tournament: { listTournaments: () => ({ tournaments: [] }) },
      realtimeLimits: { maxBufferedBytes, messagesPerSecond: 10_000, messageBurst: 10_000 },
    });
  });
  afterEach(() => gateway.stop());

  const origin = () => ({ origin: gateway.url('') });

  it('answers every random bad frame on /ws with an error, stays up, and counts no vote', async () => {
    const client = await openWs(wsUrlOf(gateway.url('/ws')), origin());
    await client.waitFor((m) => m.type === 'tournaments_update');
    const badFrame = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify({ type: 'game_action', value })),
      fc
        .record({
          type: fc.constantFrom('subscribe_tournament', 'game_action', 'other'),
          tournamentId: fc.oneof(fc.constant(''), fc.integer(), fc.constant(null)),
          round: fc.oneof(fc.string(), fc.double(), fc.constant(-1)),
          imageId: fc.anything(),
        })
        .map((value) => JSON.stringify(value)),
      // A well-formed vote from a visitor: refused by the game.
      fc
        .record({
          imageId: fc.string({ minLength: 1, maxLength: 20 }),
          round: fc.integer({ min: 1, max: 17 }),
        })
        .map(({ imageId, round }) =>
          JSON.stringify({
            type: 'game_action',
            tournamentId: 't-1',
            action: 'image_select',
            playerId: 'someone',
            imageId: imageId.trim() || 'x',
            round,
          }),
        ),
    );
    await fc.assert(
      fc.asyncProperty(badFrame, async (frame) => {
        const from = client.messages.length;
        client.send(frame);
        const answer = await client.waitFor(() => true, { from });
        expect(answer.type).toBe('error');
        expect(typeof answer.code).toBe('string');
      }),
      { numRuns: 200 },
    );
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    expect(games.votes).toHaveLength(0);
  });

  it('answers random graphql-ws operations with errors or data, and stays up', async () => {
    const client = graphqlWsClient(wsUrlOf(gateway.url('/graphql')), origin());
    const operation = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'subscription { gameEvents(tournamentId: "") { __typename } }',
        'subscription { gameEvents { __typename } }',
        'subscription { nope }',
        'mutation { logout }',
        'mutation { castVote(tournamentId: "t-1", roundNumber: 1, imageId: "x") { imageId } }',
        '{ serverTime }',
        'subscription { a: tournamentsChanged { kind } b: tournamentsChanged { kind } }',
      ),
    );
    await fc.assert(
      fc.asyncProperty(operation, async (query) => {
        const feed = feedOf(client, query);
        await feed.waitForCount(1);
        feed.dispose();
        const [first] = feed.values;
        expect(first?.errors !== undefined || first?.data !== undefined).toBe(true);
      }),
      { numRuns: 60 },
    );
    const still = feedOf(client, '{ serverTime }');
    await still.waitForCount(1);
    expect(still.values[0]?.data?.serverTime).toEqual(expect.any(String));
    await client.dispose();
    expect(games.votes).toHaveLength(0);
  });

  it('drops a client that stops reading while 10,000 events are pushed; others get them all', async () => {
    const reader = await openWs(wsUrlOf(gateway.url('/ws')), origin());
    reader.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    await reader.waitFor((m) => m.type === 'game_state_update');
    const stuck = await stuckSubscriber(gateway, 't-1');

    const wide = images(1).map((image) => ({ ...image, alt: image.alt + ' '.repeat(400) }));
    let maxBuffered = 0;
    const total = 10_000;
    const perBatch = 40;
    for (let sent = 0; sent < total; sent += perBatch) {
      const events = Array.from({ length: perBatch }, (_, i) =>
        gameEvent('t-1', {
          case: 'roundVotingStarted',
          value: {
            roundNumber: ((sent + i) % 17) + 1,
            images: wide,
            roundTimeSeconds: 5,
            remainingCount: 2,
          },
        }),
      );
      await gateway.bus.publish(topics.gameEvents.name, events.map(encodeGameEvent));
      // The healthy reader keeps up (it shares this process with the gateway).
      const expected = 2 + 2 * (sent + perBatch);
      await reader.waitFor(() => reader.messages.length >= expected, { timeoutMs: 10_000 });
      for (const socket of gateway.gateway.realtime.ws.server.clients) {
        maxBuffered = Math.max(maxBuffered, socket.bufferedAmount);
      }
    }

    const votingStarted = reader.messages.filter((m) => m.type === 'round_voting_started');
    expect(votingStarted).toHaveLength(total);
    // The stuck connection was terminated on the gateway's side (its paused socket cannot
    // notice); the reader's is the only one left.
    expect(gateway.gateway.realtime.ws.server.clients.size).toBe(1);
    expect(gateway.gateway.realtime.ws.subscriberCount('t-1')).toBe(1);
    // One event's frames (two messages of ~2.5 KB) may be written past the bound, no more.
    expect(maxBuffered).toBeLessThanOrEqual(maxBufferedBytes + 8 * 1024);
    const dropped = await gateway.registry.getSingleMetricAsString(
      'underdog_websocket_slow_consumers_dropped_total',
    );
    expect(dropped).toMatch(/protocol="ws"[^}]*} 1\n/);
    reader.close();
    stuck.destroy();
  }, 60_000);
});

/** A raw `/ws` client that subscribes, then never reads again (its socket is paused). */
async function stuckSubscriber(gateway: TestGateway, tournamentId: string): Promise<Socket> {
  const url = new URL(gateway.url('/ws'));
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    [
      `GET /ws HTTP/1.1`,
      `Host: ${url.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      '',
      '',
    ].join('\r\n'),
  );
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  // The subscription's snapshot is the marker that the server took it (no sleep): then pause.
  let received = '';
  const onData = (chunk: Buffer) => (received += chunk.toString('latin1'));
  socket.on('data', onData);
  socket.write(maskedTextFrame(JSON.stringify({ type: 'subscribe_tournament', tournamentId })));
  await waitFor(() => received.includes('"type":"game_state_update"'), 'the snapshot');
  socket.off('data', onData);
  socket.pause();
  return socket;
}

function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('keep test frames short');
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

describe('the /ws heartbeat', () => {
  let gateway: TestGateway;
  // Pings paced over a fifth of the interval: 200 ms.
  const heartbeatMs = 1_000;

  beforeEach(async () => {
    gateway = await startTestGateway({
      games: countingGames(),
      tournament: { listTournaments: () => ({ tournaments: [] }) },
      realtimeLimits: { heartbeatMs },
    });
  });
  afterEach(() => gateway.stop());

  const open = async (autoPong: boolean) => {
    const socket = new WebSocket(wsUrlOf(gateway.url('/ws')), {
      headers: { origin: gateway.url('') },
      autoPong,
    });
    const pings: number[] = [];
    socket.on('ping', () => pings.push(Date.now()));
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return { socket, pings, closed };
  };

  it('terminates a connection that does not answer a ping, and keeps one that does', async () => {
    const [answers, silent] = [await open(true), await open(false)];
    // Terminated (no close frame: 1006) at the beat after the unanswered ping.
    expect(await silent.closed).toBe(1006);
    expect(silent.pings.length).toBeGreaterThanOrEqual(1);
    expect(answers.socket.readyState).toBe(WebSocket.OPEN);
    expect(answers.pings.length).toBeGreaterThanOrEqual(1);
    answers.socket.close();
  });

  it('pings many connections a few dozen at a time, not all in one turn', async () => {
    const clients = await Promise.all(Array.from({ length: 150 }, () => open(true)));
    await waitFor(() => clients.every((client) => client.pings.length >= 1), 'every socket pinged');
    const firsts = clients.map((client) => client.pings[0]!).sort((a, b) => a - b);
    // 150 sockets over 200 ms: turns of 50 about 67 ms apart, so the last is pinged well after
    // the first (all in one turn they would be within a few ms of each other).
    expect(firsts.at(-1)! - firsts[0]!).toBeGreaterThanOrEqual(100);
    for (const client of clients) client.socket.close();
  });
});
