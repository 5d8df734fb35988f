import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { addressPrefixHash } from '@underdog/fair-play';
import { AppError } from '@underdog/kit';
import { gameKeys } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { GameVoteEventSchema, fromBinary, type VoteCast } from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { feedOf } from './realtime-clients';
import { startTestGateway, type TestGateway } from './support';

/**
 * Issue 37 point 2: behind a proxy (TRUST_PROXY=1), a socket's client address is the one the
 * proxy saw, as `req.ip` is for HTTP, not the proxy's own: the votes of players on different
 * addresses over the app's socket must not all carry the proxy's prefix to the fair-play report
 * (on their game.votes events since issue 36).
 */
const TOURNAMENT = 'tournament-socket-address';
const SECRET = 'socket-address-secret-of-32-characters';
const players = {
  'session-ann': { userId: 'user-ann', device: 'device-ann', address: '127.0.1.7' },
  'session-ben': { userId: 'user-ben', device: 'device-ben', address: '127.0.2.9' },
} as const;
type SessionId = keyof typeof players;

/**
 * A reverse proxy's one hop, as an ingress is: it forwards the WebSocket upgrade to the gateway
 * and appends the address it was connected from to `X-Forwarded-For`, keeping what the client
 * sent before it (which only a proxy in front of it could vouch for).
 */
async function proxyHop(targetPort: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.writeHead(501).end());
  const sockets = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    const upstream = connect(targetPort, '127.0.0.1', () => {
      const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress]
        .filter((entry) => entry)
        .join(', ');
      const headers = { ...req.headers, 'x-forwarded-for': forwarded };
      const lines = Object.entries(headers).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value ?? '']).map((entry) => `${name}: ${entry}`),
      );
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a socket behind a trusted proxy hop', () => {
  let gateway: TestGateway;
  let hop: { url: string; close(): Promise<void> };
  let votes: VoteCast[];
  const clients: Client[] = [];

  beforeEach(async () => {
    gateway = await startTestGateway({
      env: { TRUST_PROXY: '1', FAIR_PLAY_SECRET: SECRET },
      auth: {
        getSessionActor: ({ sessionId }) => {
          const player = players[sessionId as SessionId] as (typeof players)[SessionId] | undefined;
          if (!player) {
            throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
          }
          return {
            actor: {
              userId: player.userId,
              username: player.userId,
              role: 'user',
              isEmailVerified: true,
            },
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
    for (const { userId } of Object.values(players)) {
      await gateway.store.hSet(keys.players, { [userId]: JSON.stringify({ userId }) });
      await gateway.store.sAdd(keys.alive, userId);
    }
    hop = await proxyHop(Number(new URL(gateway.url('')).port));
    votes = [];
    await gateway.bus.subscribe({
      groupId: 'test-socket-address-votes',
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
    await hop.close();
    await gateway.stop();
  });

  /** The app's socket, opened through the hop from `address` (a loopback address of its own). */
  function socketThroughHop(sessionId: SessionId, forged?: string): Client {
    const { device, address } = players[sessionId];
    const headers: Record<string, string> = {
      origin: hop.url,
      cookie: `underdog_session=${sessionId}`,
      ...(forged ? { 'x-forwarded-for': forged } : {}),
    };
    const client = createClient({
      url: `${hop.url.replace(/^http/, 'ws')}/graphql?deviceId=${device}`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers, localAddress: address });
        }
      },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  }

  const castVote = `mutation CastVote($tournamentId: ID!, $roundNumber: Int!, $imageId: ID!) {
    castVote(tournamentId: $tournamentId, roundNumber: $roundNumber, imageId: $imageId) { imageId }
  }`;

  async function voteOver(client: Client): Promise<void> {
    const answer = feedOf(client, castVote, {
      tournamentId: TOURNAMENT,
      roundNumber: 1,
      imageId: 'round-1-image-0',
    });
    await answer.waitForCount(1);
    expect(answer.values[0]).toEqual({ data: { castVote: { imageId: 'round-1-image-0' } } });
  }

  /** Each voter's address prefix as their vote carried it to game.votes. */
  async function votePrefixes(): Promise<Map<string, string>> {
    await waitFor(() => votes.length >= 2, 'two votes on game.votes');
    return new Map(votes.map((cast) => [cast.userId, cast.fairPlayAddressPrefix]));
  }

  it("gives each player's vote the prefix of their own address, not the proxy's", async () => {
    await voteOver(socketThroughHop('session-ann'));
    await voteOver(socketThroughHop('session-ben'));

    const prefixes = await votePrefixes();
    expect(prefixes.get('user-ann')).toBe(
      addressPrefixHash(players['session-ann'].address, SECRET),
    );
    expect(prefixes.get('user-ben')).toBe(
      addressPrefixHash(players['session-ben'].address, SECRET),
    );
    expect(prefixes.get('user-ann')).not.toBe(prefixes.get('user-ben'));
    expect(prefixes.get('user-ann')).not.toBe(addressPrefixHash('127.0.0.1', SECRET));
  });

  it('believes nothing a client forged in X-Forwarded-For before the hop', async () => {
    // Both claim the same address: were it believed, the two would look like one household.
    await voteOver(socketThroughHop('session-ann', '203.0.113.5'));
    await voteOver(socketThroughHop('session-ben', '203.0.113.5, 198.51.100.1'));

    const prefixes = await votePrefixes();
    expect(prefixes.get('user-ann')).toBe(
      addressPrefixHash(players['session-ann'].address, SECRET),
    );
    expect(prefixes.get('user-ben')).toBe(
      addressPrefixHash(players['session-ben'].address, SECRET),
    );
  });
});
