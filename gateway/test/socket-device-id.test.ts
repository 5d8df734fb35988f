import { deviceIdHash } from '@underdog/fair-play';
import { AppError } from '@underdog/kit';
import { gameKeys } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { GameVoteEventSchema, fromBinary, type VoteCast } from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { feedOf, wsUrlOf } from './realtime-clients';
import { startTestGateway, type TestGateway } from './support';

/**
 * Issue 37 point 7: the raw `X-Device-ID` is in no socket URL (ingress logs keep URLs) and in no
 * fair-play signal. The web app names its device in graphql-ws `connection_init`; the gateway
 * plays the socket with it (one account per device in a game) and records only its keyed hash
 * (on the vote's game.votes event since issue 36: no signal message of its own).
 * The URL's `?deviceId=` (docs/api-ws.md) still counts for clients that send it.
 */
const TOURNAMENT = 'tournament-socket-device';
const SECRET = 'socket-device-secret-of-32-characters';
const accounts = {
  'session-ann': 'user-ann',
  'session-ben': 'user-ben',
} as const;
type SessionId = keyof typeof accounts;

const castVote = `mutation CastVote($tournamentId: ID!, $roundNumber: Int!, $imageId: ID!) {
  castVote(tournamentId: $tournamentId, roundNumber: $roundNumber, imageId: $imageId) { imageId }
}`;
const vote = { tournamentId: TOURNAMENT, roundNumber: 1, imageId: 'round-1-image-0' };

describe('the device id of a graphql-ws socket', () => {
  let gateway: TestGateway;
  let votes: VoteCast[];
  const clients: Client[] = [];

  beforeEach(async () => {
    gateway = await startTestGateway({
      env: { FAIR_PLAY_SECRET: SECRET },
      auth: {
        getSessionActor: ({ sessionId }) => {
          const userId = accounts[sessionId as SessionId] as string | undefined;
          if (!userId) {
            throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
          }
          return {
            actor: { userId, username: userId, role: 'user', isEmailVerified: true },
            session: { id: sessionId },
          };
        },
      },
    });
    const keys = gameKeys(TOURNAMENT);
    await gateway.store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(Date.now() + 60_000),
    });
    for (const userId of Object.values(accounts)) {
      await gateway.store.hSet(keys.players, { [userId]: JSON.stringify({ userId }) });
      await gateway.store.sAdd(keys.alive, userId);
    }
    votes = [];
    await gateway.bus.subscribe({
      groupId: 'test-socket-device-votes',
      topics: [topics.gameVotes.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        for (const message of batch) {
          const event = fromBinary(GameVoteEventSchema, message.value ?? new Uint8Array());
          if (event.kind.case === 'voteCast') votes.push(event.kind.value);
        }
      },
    });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.dispose();
    await gateway.stop();
  });

  /** The app's socket as the web app opens it: `path` as given, the device in `init`. */
  function socket(sessionId: SessionId, path: string, init?: Record<string, unknown>): Client {
    const headers = { origin: gateway.url(''), cookie: `underdog_session=${sessionId}` };
    const client = createClient({
      url: wsUrlOf(gateway.url(path)),
      ...(init ? { connectionParams: init } : {}),
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers });
        }
      },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  }

  async function voteOver(client: Client) {
    const answer = feedOf(client, castVote, vote);
    await answer.waitForCount(1);
    return answer.values[0] as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  }

  /** The vote as it went to game.votes, with where it came from (issue 36). */
  async function votedOf(userId: string): Promise<VoteCast> {
    return waitFor(
      () => votes.find((cast) => cast.userId === userId),
      `the game.votes event of ${userId}`,
    );
  }

  it('takes the device from connection_init and gives the vote only its keyed hash', async () => {
    const answer = await voteOver(socket('session-ann', '/graphql', { deviceId: 'device-ann-1' }));
    expect(answer).toEqual({ data: { castVote: { imageId: 'round-1-image-0' } } });

    const cast = await votedOf('user-ann');
    expect(cast.fairPlayDeviceId).toBe(deviceIdHash('device-ann-1', SECRET));
    expect(cast.fairPlayDeviceId).toMatch(/^dev:[0-9a-f]{64}$/);
    // What the fair-play report keeps of the vote (the tournament service stores only these).
    const kept = [cast.fairPlayDeviceId, cast.fairPlayAddressPrefix, cast.fairPlayUserAgent];
    expect(kept.join(' ')).not.toContain('device-ann-1');
  });

  it('plays the socket with that device: a second account on it is refused DEVICE_IN_USE', async () => {
    const first = await voteOver(socket('session-ann', '/graphql', { deviceId: 'shared-phone' }));
    expect(first.data).toBeDefined();
    const second = await voteOver(socket('session-ben', '/graphql', { deviceId: 'shared-phone' }));
    expect(second.errors?.[0]?.extensions?.code).toBe('DEVICE_IN_USE');
  });

  it("still takes the URL's ?deviceId= (the documented form), hashed the same way", async () => {
    const answer = await voteOver(socket('session-ben', '/graphql?deviceId=device-ben-url'));
    expect(answer.data).toBeDefined();

    const cast = await votedOf('user-ben');
    expect(cast.fairPlayDeviceId).toBe(deviceIdHash('device-ben-url', SECRET));
  });
});
