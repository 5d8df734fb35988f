import { AppError } from '@underdog/kit';
import { gameKeys } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { AuthService } from '@underdog/proto';
import { createServiceClient } from '@underdog/rpc';
import type { Client } from 'graphql-ws';
import { SessionActors } from '../src/session-actors';
import { feedOf, graphqlWsClient, wsUrlOf } from './realtime-clients';
import { startTestGateway, type TestGateway } from './support';

/**
 * The web app casts `castVote` over its graphql-ws socket (issue 25): the socket's session is
 * resolved once, at connection_init, and the vote must meet exactly the rules it meets over
 * HTTP, with the same refusal codes.
 */
const TOURNAMENT = 'tournament-socket-votes';
const DEVICE = 'device-socket-votes';

interface Account {
  userId: string;
  isEmailVerified: boolean;
}

describe('castVote over the graphql-ws socket', () => {
  let gateway: TestGateway;
  let sessions: Map<string, Account>;
  let lookups: number;
  /** Lookups the stub auth service fails (as if it did not answer) before answering again. */
  let failingLookups: number;
  const clients: Client[] = [];

  beforeEach(async () => {
    sessions = new Map([
      ['session-verified', { userId: 'user-verified', isEmailVerified: true }],
      ['session-other', { userId: 'user-other', isEmailVerified: true }],
      ['session-unverified', { userId: 'user-unverified', isEmailVerified: false }],
    ]);
    lookups = 0;
    failingLookups = 0;
    gateway = await startTestGateway({
      auth: {
        getSessionActor: ({ sessionId }) => {
          lookups += 1;
          if (failingLookups > 0) {
            failingLookups -= 1;
            throw new AppError('UNAVAILABLE', 'auth is down');
          }
          const account = sessions.get(sessionId);
          if (!account) {
            throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
          }
          return {
            actor: { ...account, username: account.userId, role: 'user' },
            session: { id: sessionId },
          };
        },
        logout: ({ sessionId }) => {
          sessions.delete(sessionId);
          return {};
        },
      },
    });
    await openVoting(Date.now() + 60_000);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.dispose();
    await gateway.stop();
  });

  async function openVoting(deadline: number) {
    const keys = gameKeys(TOURNAMENT);
    await gateway.store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(deadline),
    });
    for (const account of sessions.values()) {
      await gateway.store.hSet(keys.players, {
        [account.userId]: JSON.stringify({ userId: account.userId }),
      });
      await gateway.store.sAdd(keys.alive, account.userId);
    }
  }

  const castVote = `mutation CastVote($tournamentId: ID!, $roundNumber: Int!, $imageId: ID!) {
    castVote(tournamentId: $tournamentId, roundNumber: $roundNumber, imageId: $imageId) {
      tournamentId roundNumber imageId
    }
  }`;
  const variables = { tournamentId: TOURNAMENT, roundNumber: 1, imageId: 'round-1-image-0' };

  const socket = (sessionId?: string) => {
    const client = graphqlWsClient(wsUrlOf(gateway.url(`/graphql?deviceId=${DEVICE}`)), {
      origin: gateway.url(''),
      ...(sessionId ? { cookie: `underdog_session=${sessionId}` } : {}),
    });
    clients.push(client);
    return client;
  };

  /** Another image of the same round: a second vote, not a resend of the first. */
  const another = { ...variables, imageId: 'round-1-image-1' };

  async function overSocket(client: Client, vote = variables) {
    const answer = feedOf(client, castVote, vote);
    await answer.waitForCount(1);
    return answer.values[0] as {
      data?: unknown;
      errors?: Array<{ extensions?: { code?: string } }>;
    };
  }

  async function overHttp(sessionId?: string, vote = variables) {
    const response = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-device-id': DEVICE,
        ...(sessionId ? { cookie: `underdog_session=${sessionId}` } : {}),
      },
      body: JSON.stringify({ query: castVote, variables: vote }),
    });
    return (await response.json()) as {
      data?: unknown;
      errors?: Array<{ extensions?: { code?: string } }>;
    };
  }

  const codeOf = (answer: { errors?: Array<{ extensions?: { code?: string } }> }) =>
    answer.errors?.[0]?.extensions?.code;

  async function votesOnPartition(): Promise<bigint> {
    const partition = await gateway.bus.partitionOf(topics.gameVotes.name, TOURNAMENT);
    return BigInt(await gateway.bus.endOffset(topics.gameVotes.name, partition));
  }

  it('acknowledges a vote and puts it on game.votes, with the session resolved once for the socket', async () => {
    const client = socket('session-verified');

    const answer = await overSocket(client);

    expect(answer).toEqual({ data: { castVote: variables } });
    expect(await votesOnPartition()).toBe(1n);
    // A second operation on the same socket does not look the session up again. The same vote
    // again is a resend, answered with the first's fate; another image is a second vote.
    expect(await overSocket(client)).toEqual({ data: { castVote: variables } });
    expect(codeOf(await overSocket(client, another))).toBe('ALREADY_VOTED');
    expect(await votesOnPartition()).toBe(1n);
    expect(lookups).toBe(1);
  });

  it('refuses a visitor, an unverified player and a second vote with the codes HTTP answers', async () => {
    // The socket's own code for a signed-out caller: the page may have signed in since it
    // opened, so the client reconnects and sends once more (the next test).
    expect(codeOf(await overSocket(socket()))).toBe('SOCKET_UNAUTHENTICATED');
    expect(codeOf(await overHttp())).toBe('UNAUTHENTICATED');

    expect(codeOf(await overSocket(socket('session-unverified')))).toBe('EMAIL_NOT_VERIFIED');
    expect(codeOf(await overHttp('session-unverified'))).toBe('EMAIL_NOT_VERIFIED');

    expect(codeOf(await overHttp('session-verified'))).toBeUndefined();
    expect(codeOf(await overSocket(socket('session-verified'), another))).toBe('ALREADY_VOTED');
    expect(codeOf(await overHttp('session-verified', another))).toBe('ALREADY_VOTED');
    // The same vote again (a resend): acknowledged, as the first, over either transport.
    expect(codeOf(await overSocket(socket('session-verified')))).toBeUndefined();
    expect(codeOf(await overHttp('session-verified'))).toBeUndefined();
    expect(await votesOnPartition()).toBe(1n);
  });

  it('refuses a vote after the deadline with VOTING_CLOSED, as over HTTP', async () => {
    await openVoting(Date.now() - 5_000);

    expect(codeOf(await overSocket(socket('session-verified')))).toBe('VOTING_CLOSED');
    expect(codeOf(await overHttp('session-other'))).toBe('VOTING_CLOSED');
    expect(await votesOnPartition()).toBe(0n);
  });

  it('stops an open socket voting once its session is logged out through the gateway', async () => {
    const client = socket('session-verified');
    // The socket is open and its session resolved (a harmless query over it).
    await feedOf(client, '{ serverTime }').waitForCount(1);

    const logout = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'underdog_session=session-verified' },
      body: JSON.stringify({ query: 'mutation { logout }' }),
    });
    expect(logout.status).toBe(200);

    expect(codeOf(await overSocket(client))).toBe('SOCKET_UNAUTHENTICATED');
    expect(await votesOnPartition()).toBe(0n);
  });

  it('answers a socket opened signed out with SOCKET_UNAUTHENTICATED, and counts the vote resent on a socket opened with the new session', async () => {
    // A page opened signed out, whose player then signed in over HTTP: its socket still speaks
    // for the visitor it opened as, and says so with a code the client recovers from.
    const opened = socket();
    await feedOf(opened, '{ serverTime }').waitForCount(1);
    const refused = await overSocket(opened);
    expect(codeOf(refused)).toBe('SOCKET_UNAUTHENTICATED');
    expect(await votesOnPartition()).toBe(0n);

    // The client reconnects (its cookie now the new session's) and sends the vote once more.
    expect(await overSocket(socket('session-verified'))).toEqual({ data: { castVote: variables } });
    expect(await votesOnPartition()).toBe(1n);
  });

  it('never votes for a logged-out user on a socket opened with their session, even after another signs in', async () => {
    const client = socket('session-verified');
    await feedOf(client, '{ serverTime }').waitForCount(1);
    await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'underdog_session=session-verified' },
      body: JSON.stringify({ query: 'mutation { logout }' }),
    });

    // The old socket is refused; the vote sent on the new user's socket is theirs.
    expect(codeOf(await overSocket(client))).toBe('SOCKET_UNAUTHENTICATED');
    expect(await overSocket(socket('session-other'))).toEqual({ data: { castVote: variables } });
    expect(await votesOnPartition()).toBe(1n);
    const reserved = await gateway.store.hGetAll(gameKeys(TOURNAMENT).reserved(1));
    expect(reserved).toEqual({ 'user-other': variables.imageId });
  });

  it('asks again at the first vote when the lookup at connection_init failed', async () => {
    failingLookups = 1;
    const client = socket('session-verified');
    await feedOf(client, '{ serverTime }').waitForCount(1);

    expect(await overSocket(client)).toEqual({ data: { castVote: variables } });
    expect(lookups).toBe(2);
  });

  it('costs one session lookup for many HTTP votes of a verified player (the actor cache)', async () => {
    await overHttp('session-verified');
    await overHttp('session-verified');
    await overHttp('session-verified');

    expect(lookups).toBe(1);
  });

  it('closes a graphql-ws socket that floods (1008), as /ws does', async () => {
    const client = socket('session-verified');
    const closed = new Promise<number>((resolve) =>
      client.on('closed', (event) => resolve((event as { code: number }).code)),
    );
    for (let i = 0; i < 40; i += 1) feedOf(client, '{ serverTime }');

    expect(await closed).toBe(1008);
  });
});

describe('SessionActors (the per-session actor cache)', () => {
  function authWith(accounts: Map<string, boolean>) {
    const calls = { lookups: 0 };
    const client = createServiceClient(AuthService, {
      mode: 'in-process',
      routes: (router) =>
        router.service(AuthService, {
          getSessionActor: ({ sessionId }) => {
            calls.lookups += 1;
            const verified = accounts.get(sessionId);
            if (verified === undefined) {
              throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
            }
            return { actor: { userId: sessionId, isEmailVerified: verified } };
          },
          logout: ({ sessionId }) => {
            accounts.delete(sessionId);
            return {};
          },
        }),
    });
    return { calls, client };
  }

  it("reuses a verified session's actor and forgets it on logout", async () => {
    const { calls, client } = authWith(new Map([['s-1', true]]));
    const actors = new SessionActors(client);
    const auth = actors.client();

    await auth.getSessionActor({ sessionId: 's-1' });
    await auth.getSessionActor({ sessionId: 's-1' });
    expect(calls.lookups).toBe(1);

    await auth.logout({ sessionId: 's-1' });
    await expect(auth.getSessionActor({ sessionId: 's-1' })).rejects.toThrow();
    expect(calls.lookups).toBe(2);
    expect(actors.endedSince('s-1', 0)).toBe(true);
  });

  it("asks every time for an unverified player's actor (a verification must show)", async () => {
    const { calls, client } = authWith(new Map([['s-2', false]]));
    const auth = new SessionActors(client).client();

    await auth.getSessionActor({ sessionId: 's-2' });
    await auth.getSessionActor({ sessionId: 's-2' });

    expect(calls.lookups).toBe(2);
  });

  it("asks every time for an admin's actor, however verified", async () => {
    let lookups = 0;
    const client = createServiceClient(AuthService, {
      mode: 'in-process',
      routes: (router) =>
        router.service(AuthService, {
          getSessionActor: ({ sessionId }) => {
            lookups += 1;
            return { actor: { userId: sessionId, role: 'admin', isEmailVerified: true } };
          },
        }),
    });
    const auth = new SessionActors(client).client();

    await auth.getSessionActor({ sessionId: 's-admin' });
    await auth.getSessionActor({ sessionId: 's-admin' });

    expect(lookups).toBe(2);
  });

  it('expires a cached actor after its TTL', async () => {
    let now = 0;
    const { calls, client } = authWith(new Map([['s-3', true]]));
    const auth = new SessionActors(client, { ttlMs: 1_000, now: () => now }).client();

    await auth.getSessionActor({ sessionId: 's-3' });
    now = 1_001;
    await auth.getSessionActor({ sessionId: 's-3' });

    expect(calls.lookups).toBe(2);
  });
});
