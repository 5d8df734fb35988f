import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@underdog/test-support';
import { WebSocketServer, type WebSocket } from 'ws';
import { appOperations } from '../driver/app-operations';
import {
  FULL_CLOSE_CODE,
  FULL_RETRY_JITTER,
  PlayerDriver,
  RECONNECT_JITTER,
  fullRetryMs,
  jittered,
} from '../driver/players';
import type { DriverOptions, PlayerOutcome } from '../driver/driver-contract';
import { ownVoteOf } from '../driver/player-messages';

/**
 * A tiny stand-in for a gateway's graphql-ws endpoint: it turns the first `full` sockets away
 * as a full gateway does (the upgrade accepted, then close 1013 `Server full; retry in N s`),
 * acknowledges connection_init, answers GameEvents with a snapshot carrying the caller's own
 * vote (`ownVote`), and records every operation it was sent.
 */
class FakeGateway {
  readonly operations: string[] = [];
  readonly sockets = new Set<WebSocket>();
  full = 0;
  ownVote: string | null = null;
  answerVotes = true;
  private readonly http: Server;
  private readonly wss: WebSocketServer;

  private constructor() {
    this.http = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    });
    this.wss = new WebSocketServer({ server: this.http });
    this.wss.on('connection', (socket) => {
      if (this.full > 0) {
        this.full -= 1;
        socket.close(FULL_CLOSE_CODE, 'Server full; retry in 0 s');
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('message', (data: Buffer) => this.answer(socket, data.toString()));
    });
  }

  static async start(): Promise<FakeGateway> {
    const gateway = new FakeGateway();
    await new Promise<void>((resolve) => gateway.http.listen(0, '127.0.0.1', resolve));
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  /** Round 1's voting opens on every socket subscribed to GameEvents. */
  votingStarted(): void {
    const event = {
      __typename: 'RoundVotingStarted',
      tournamentId: 't1',
      gameId: 'g1',
      occurredAt: new Date().toISOString(),
      roundNumber: 1,
      images: [{ __typename: 'RoundImage', id: 'round-1-image-1', url: '/1.png', alt: 'one' }],
      roundTimeSeconds: 15,
      phaseEndsAt: new Date(Date.now() + 15_000).toISOString(),
      timeRemaining: 15,
      remainingCount: 2,
      offlineRemainingCount: 0,
    };
    for (const [socket, id] of this.events) {
      socket.send(JSON.stringify({ id, type: 'next', payload: { data: { gameEvents: event } } }));
    }
  }

  /** Closes every socket as a gateway that is stopping does (1001, going away). */
  goAway(): void {
    for (const socket of this.sockets) socket.close(1001, 'Going away');
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private readonly events = new Map<WebSocket, string>();

  private answer(socket: WebSocket, text: string): void {
    const message = JSON.parse(text) as {
      id?: string;
      type: string;
      payload?: { operationName?: string };
    };
    if (message.type === 'subscribe_tournament') {
      // The legacy `/ws`: its snapshot is a game_state_update.
      const player = { voteImageId: this.ownVote };
      socket.send(JSON.stringify({ type: 'game_state_update', gameState: { player } }));
      return;
    }
    if (message.type === 'connection_init') {
      socket.send(JSON.stringify({ type: 'connection_ack' }));
      return;
    }
    if (message.type !== 'subscribe' || !message.id) return;
    const name = message.payload?.operationName ?? '?';
    this.operations.push(name);
    if (name === 'GameEvents') {
      this.events.set(socket, message.id);
      const snapshot = {
        __typename: 'GameSnapshot',
        tournamentId: 't1',
        gameId: 'g1',
        occurredAt: new Date().toISOString(),
        game: { player: { __typename: 'PlayerState', voteImageId: this.ownVote } },
      };
      socket.send(
        JSON.stringify({
          id: message.id,
          type: 'next',
          payload: { data: { gameEvents: snapshot } },
        }),
      );
    } else if (name === 'CastVote' && this.answerVotes) {
      socket.send(
        JSON.stringify({
          id: message.id,
          type: 'next',
          payload: { data: { castVote: { __typename: 'VoteReceipt' } } },
        }),
      );
    }
  }
}

/** Resolves once `check` holds, polling the driver's own state (no time is asserted). */
async function until(check: () => boolean): Promise<void> {
  await waitFor(check, { message: `the driver's state: ${check.toString()}`, intervalMs: 1 });
}

function driverFor(
  gateways: FakeGateway[],
  reconnect?: DriverOptions['reconnect'],
  protocol: DriverOptions['protocol'] = 'graphql-ws',
) {
  return new PlayerDriver({
    gatewayUrls: gateways.map((gateway) => gateway.url),
    cookieName: 'sid',
    tournamentIds: ['t1'],
    players: [{ username: 'ann', sessionId: 's1', deviceId: 'd1', tournament: 0, gateway: 0 }],
    sourceAddresses: [],
    voteSpread: 0,
    connectConcurrency: 1,
    protocol,
    operations: appOperations(),
    ...(reconnect ? { reconnect } : {}),
  });
}

const outcomeOf = (driver: PlayerDriver): PlayerOutcome => driver.report().outcomes[0]!;

describe("the load driver's waiting room and reconnects", () => {
  const gateways: FakeGateway[] = [];
  let driver: PlayerDriver | undefined;

  afterEach(async () => {
    driver?.close();
    driver = undefined;
    await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
  });

  it('reads the wait a full gateway asks for, and spreads retries around it as the app does', () => {
    expect(fullRetryMs('Server full; retry in 5 s')).toBe(5_000);
    expect(fullRetryMs('Server full; retry in 12s')).toBe(12_000);
    // No N: the gateway's default, as the web app assumes.
    expect(fullRetryMs('Server full')).toBe(10_000);
    expect(jittered(5_000, FULL_RETRY_JITTER, () => 0)).toBeCloseTo(3_500);
    expect(jittered(5_000, FULL_RETRY_JITTER, () => 1)).toBeCloseTo(6_500);
    expect(jittered(3_000, RECONNECT_JITTER, () => 0)).toBeCloseTo(2_000);
    expect(jittered(3_000, RECONNECT_JITTER, () => 0.5)).toBeCloseTo(3_000);
    expect(jittered(3_000, RECONNECT_JITTER, () => 1)).toBeCloseTo(4_000);
  });

  it("reads the caller's own vote from a snapshot of either protocol", () => {
    expect(ownVoteOf('{"game":{"player":{"isParticipant":true,"voteImageId":"r1-i2"}}}')).toBe(
      'r1-i2',
    );
    expect(ownVoteOf('{"gameState":{"player":{"voteImageId":null}}}')).toBeNull();
    expect(ownVoteOf('{"gameState":{"player":null}}')).toBeNull();
  });

  it('counts a 1013 close as a wait and gets in on a later try', async () => {
    const gateway = await FakeGateway.start();
    gateways.push(gateway);
    gateway.full = 2;
    driver = driverFor([gateway]);

    const started = await driver.start();

    // start() does not wait for a player the gateway turned away: it keeps trying.
    expect(started).toMatchObject({ connected: 0, waiting: 1, failed: 0 });
    const current = driver;
    await until(() => outcomeOf(current).inAt !== undefined);
    expect(outcomeOf(current).turnedAway).toBe(2);
    expect(gateway.operations).toEqual(['GameEvents', 'OwnTournamentChanged', 'JoinTournament']);
  });

  it('waits the same way on the legacy /ws', async () => {
    const gateway = await FakeGateway.start();
    gateways.push(gateway);
    gateway.full = 1;
    driver = driverFor([gateway], undefined, 'ws');

    expect(await driver.start()).toMatchObject({ connected: 0, waiting: 1, failed: 0 });
    const current = driver;
    await until(() => outcomeOf(current).inAt !== undefined);
    expect(outcomeOf(current).turnedAway).toBe(1);
  });

  it('without reconnect, counts a socket closed under a player as dropped', async () => {
    const gateway = await FakeGateway.start();
    gateways.push(gateway);
    driver = driverFor([gateway]);
    await driver.start();
    const current = driver;

    gateway.goAway();
    await until(() => current.report().dropped === 1);
    expect(outcomeOf(current).droppedAt).toBeUndefined();
  });

  it('comes back on the next gateway with its acknowledged vote in the snapshot, sent once', async () => {
    const [first, second] = [await FakeGateway.start(), await FakeGateway.start()];
    gateways.push(first, second);
    driver = driverFor([first, second], { delayMs: 0 });
    await driver.start();
    const current = driver;
    first.votingStarted();
    await until(() => outcomeOf(current).answer === 'vote_processed');
    second.ownVote = 'round-1-image-1';

    first.goAway();
    await until(() => outcomeOf(current).backAt !== undefined);

    expect(outcomeOf(current)).toMatchObject({
      voteAtDrop: 'acked',
      backOn: 1,
      snapshotVote: 'round-1-image-1',
      reconnectAttempts: 1,
    });
    // Resubscribed, not joined again, and the acknowledged vote not sent again.
    expect(second.operations).toEqual(['GameEvents', 'OwnTournamentChanged']);
  });

  it('sends a vote that had no answer when its socket closed again once back', async () => {
    const [first, second] = [await FakeGateway.start(), await FakeGateway.start()];
    gateways.push(first, second);
    first.answerVotes = false;
    driver = driverFor([first, second], { delayMs: 0 });
    await driver.start();
    const current = driver;
    first.votingStarted();
    await until(() => first.operations.includes('CastVote'));

    first.goAway();
    await until(() => outcomeOf(current).answer !== undefined);

    expect(outcomeOf(current)).toMatchObject({
      voteAtDrop: 'in-flight',
      snapshotVote: null,
      answer: 'vote_processed',
      votedImageId: 'round-1-image-1',
    });
    expect(second.operations).toEqual(['GameEvents', 'OwnTournamentChanged', 'CastVote']);
  });
});
