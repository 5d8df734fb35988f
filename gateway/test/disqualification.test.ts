import { AppError, requireAdmin } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  Role,
  TournamentStatus,
  timestampFromDate,
  type DisqualifyParticipantRequest,
} from '@underdog/proto';
import fc from 'fast-check';
import type { LiveGamePort } from '../src/realtime/ports';
import { encodeGameEvent, gameEvent, liveGame } from './game-events';
import {
  feedOf,
  graphqlWsClient,
  openWs,
  wsUrlOf,
  type ServerMessageLike,
  type WsTestClient,
} from './realtime-clients';
import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  userMessage,
  validPassword,
  type TestGateway,
} from './support';

/*
 * Issue 28 §4 at the edge: an admin disqualifies a participant over REST and GraphQL (401 for a
 * visitor, 403 for anyone else on every new route, whatever the body; 400 naming the field; the
 * engine's 404 passed on; never a 500 for any body), statistics and details show who was
 * disqualified and why, and the player alone (never the other watchers) hears it live on /ws and
 * graphql-ws, and sees the reason in their snapshot.
 */

const ADMIN_EMAIL = 'admin@example.com';
const PLAYER_EMAIL = 'ben@example.com';
const CHEAT_EMAIL = 'cheat@example.com';

/** Sessions by id: the stub auth service knows an admin and two players. */
function authOf(emails: string[]) {
  const known = new Set(emails);
  const user = (email: string) => ({
    ...userMessage(email, email.split('@')[0] ?? email),
    role: email === ADMIN_EMAIL ? Role.ADMIN : Role.USER,
    isEmailVerified: true,
  });
  const actor = (email: string) => ({
    userId: `user-${email}`,
    username: email.split('@')[0] ?? email,
    role: email === ADMIN_EMAIL ? 'admin' : 'user',
    isEmailVerified: true,
  });
  const emailOf = (sessionId: string) => {
    const email = sessionId.replace(/^session:/, '');
    if (!known.has(email)) {
      throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
    }
    return email;
  };
  return {
    login: ({
      email,
      password,
      deviceId,
    }: {
      email: string;
      password: string;
      deviceId: string;
    }) => {
      if (!known.has(email) || password !== validPassword) {
        throw new AppError('UNAUTHENTICATED', 'Invalid username or password', {
          reason: 'INVALID_CREDENTIALS',
        });
      }
      return {
        user: user(email),
        session: { id: `session:${email}`, userId: `user-${email}`, deviceId },
      };
    },
    getSession: ({ sessionId }: { sessionId: string }) => {
      const email = emailOf(sessionId);
      return { user: user(email), session: { id: sessionId } };
    },
    getSessionActor: ({ sessionId }: { sessionId: string }) => {
      const email = emailOf(sessionId);
      return { actor: actor(email), session: { id: sessionId } };
    },
  };
}

const LIVE = 'live-cup';
const PLAYED = 'played-cup';

describe('disqualification at the edge (stub services)', () => {
  let gateway: TestGateway;
  let asked: DisqualifyParticipantRequest[];
  let admin: string;
  let player: string;
  let cheat: string;
  const sockets: WsTestClient[] = [];
  const disposers: Array<() => void | Promise<void>> = [];

  /** The snapshot names the caller disqualified once the stub engine has been asked to. */
  const games: LiveGamePort = {
    async liveGame(origin, tournamentId) {
      const actor = await origin.session.actor();
      const reason = asked.find((request) => request.userId === actor?.userId)?.reason;
      return liveGame({
        tournamentId,
        ...(actor
          ? {
              player: {
                isParticipant: true,
                isEliminated: false,
                eliminatedInRound: 0,
                isOfflinePlayer: false,
                ...(reason === undefined ? {} : { disqualificationReason: reason }),
              },
            }
          : {}),
      });
    },
    vote: (_origin, vote) => Promise.resolve(vote),
  };

  beforeEach(async () => {
    asked = [];
    gateway = await startTestGateway({
      auth: authOf([ADMIN_EMAIL, PLAYER_EMAIL, CHEAT_EMAIL]),
      games,
      tournament: {
        listTournaments: () => ({ tournaments: [] }),
        getTournament: ({ id }) => {
          if (id !== LIVE && id !== PLAYED) {
            throw new AppError('NOT_FOUND', 'Tournament not found', {
              reason: 'TOURNAMENT_NOT_FOUND',
            });
          }
          return {
            tournament: {
              id,
              title: 'Cup',
              status: TournamentStatus.FINISHED,
              startAt: timestampFromDate(new Date('2030-01-01T12:00:00.000Z')),
              participantCount: 3,
              roundTimeSeconds: 5,
            },
          };
        },
      },
      game: {
        disqualifyParticipant: (request) => {
          requireAdmin(request.actor);
          if (request.tournamentId !== LIVE && request.tournamentId !== PLAYED) {
            throw new AppError('NOT_FOUND', 'Tournament not found', {
              reason: 'TOURNAMENT_NOT_FOUND',
            });
          }
          if (request.userId !== `user-${CHEAT_EMAIL}`) {
            throw new AppError('NOT_FOUND', 'This user is not a participant of the tournament', {
              reason: 'NOT_A_PARTICIPANT',
            });
          }
          asked.push(request);
          return request.tournamentId === LIVE
            ? { duringGame: true, effectiveRound: 2 }
            : { duringGame: false, effectiveRound: 0, winnerUsername: 'ben' };
        },
        getTournamentStatistics: () => ({
          statistics: {
            gameId: 'g',
            finished: true,
            roundsPlayed: 2,
            participantCount: 3,
            onlineParticipantCount: 3,
            winnerUsername: 'ben',
            disqualifiedCount: 1,
            participants: [
              { username: 'ben', isEliminated: false },
              {
                username: 'cheat',
                isEliminated: true,
                eliminatedInRound: 2,
                isDisqualified: true,
                disqualificationReason: 'Ring of accounts',
              },
              { username: 'cat', isEliminated: true, eliminatedInRound: 1 },
            ],
          },
        }),
        getTournamentDetails: ({ actor }) => {
          requireAdmin(actor);
          return {
            details: {
              gameId: 'g',
              finished: true,
              winnerUsername: 'ben',
              totalPlayers: 3,
              rounds: [
                {
                  roundNumber: 2,
                  eliminatedPlayers: [
                    { username: 'cheat', disqualificationReason: 'Ring of accounts' },
                  ],
                },
              ],
            },
          };
        },
      },
    });
    admin = await login(ADMIN_EMAIL);
    player = await login(PLAYER_EMAIL);
    cheat = await login(CHEAT_EMAIL);
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    for (const dispose of disposers.splice(0)) await dispose();
    await gateway.stop();
  });

  async function login(email: string): Promise<string> {
    const response = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ email, password: validPassword }),
    });
    expect(response.status).toBe(200);
    return cookieFrom(response);
  }

  const disqualifyPath = (tournamentId = LIVE, userId = `user-${CHEAT_EMAIL}`) =>
    `/api/admin/tournaments/${encodeURIComponent(tournamentId)}/participants/${encodeURIComponent(userId)}/disqualify`;

  const post = async (path: string, body: string | undefined, cookie = '') => {
    const response = await fetch(gateway.url(path), {
      method: 'POST',
      headers: { ...jsonHeaders, ...(cookie ? { cookie } : {}) },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const get = async (path: string, cookie = '') => {
    const response = await fetch(gateway.url(path), {
      headers: { 'x-device-id': 'device-test-1', ...(cookie ? { cookie } : {}) },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const graphql = async (query: string, variables: Record<string, unknown>, cookie = '') => {
    const response = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { ...jsonHeaders, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as {
      data?: Record<string, unknown> | null;
      errors?: Array<{ message: string; extensions?: { code?: string } }>;
    };
  };
  const DISQUALIFY = /* GraphQL */ `
    mutation ($t: ID!, $u: ID!, $r: String!) {
      disqualifyParticipant(tournamentId: $t, userId: $u, reason: $r) {
        tournamentId
        userId
        reason
        duringGame
        effectiveRound
        winner {
          username
        }
      }
    }
  `;

  it('disqualifies during the game (out at the end of the current round) and after it (the re-decided winner), over REST', async () => {
    const during = await post(
      disqualifyPath(),
      JSON.stringify({ reason: '  Ring of accounts ' }),
      admin,
    );
    expect(during).toEqual({
      status: 200,
      body: {
        tournamentId: LIVE,
        userId: `user-${CHEAT_EMAIL}`,
        reason: 'Ring of accounts',
        duringGame: true,
        effectiveRound: 2,
        winner: null,
      },
    });
    // The engine got the admin as the actor and the trimmed reason.
    expect(asked[0]).toMatchObject({
      actor: { userId: `user-${ADMIN_EMAIL}`, role: 'admin' },
      tournamentId: LIVE,
      userId: `user-${CHEAT_EMAIL}`,
      reason: 'Ring of accounts',
    });

    const after = await post(disqualifyPath(PLAYED), JSON.stringify({ reason: 'Ring' }), admin);
    expect(after.body).toMatchObject({
      duringGame: false,
      effectiveRound: null,
      winner: { username: 'ben' },
    });
  });

  it('refuses a visitor with 401 and a player with 403 ADMIN_ONLY, whatever the body, over REST and GraphQL', async () => {
    for (const body of [JSON.stringify({ reason: 'x' }), undefined, '{}', '[]', '{"reason":7}']) {
      expect((await post(disqualifyPath(), body)).status).toBe(401);
      const refused = await post(disqualifyPath('nope', 'nobody'), body, player);
      expect(refused).toMatchObject({ status: 403, body: { code: 'ADMIN_ONLY' } });
    }
    // Text that is not a JSON object or array is refused by the edge before any route, alike.
    for (const cookie of ['', player, admin]) {
      expect(await post(disqualifyPath(), '{"reason":', cookie)).toMatchObject({
        status: 400,
        body: { message: 'Malformed request', code: 'BAD_REQUEST' },
      });
    }
    const variables = { t: LIVE, u: `user-${CHEAT_EMAIL}`, r: 'Ring' };
    expect((await graphql(DISQUALIFY, variables)).errors?.[0]?.extensions?.code).toBe(
      'UNAUTHENTICATED',
    );
    const forbidden = await graphql(DISQUALIFY, { ...variables, r: '' }, player);
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('ADMIN_ONLY');
    expect(asked).toEqual([]);
  });

  it('answers a bodiless, malformed or out-of-bounds request with a clear 400, and the engine 404 with 404', async () => {
    const cases: Array<[string | undefined, string]> = [
      // No body at all is the edge's `{}`.
      [undefined, 'reason is required'],
      ['[]', 'Request body must be a JSON object'],
      ['{}', 'reason is required'],
      ['{"reason":null}', 'reason is required'],
      ['{"reason":42}', 'reason must be a string'],
      ['{"reason":"   "}', 'reason is required'],
      [JSON.stringify({ reason: 'x'.repeat(501) }), 'reason must be at most 500 characters'],
    ];
    for (const [body, message] of cases) {
      expect(await post(disqualifyPath(), body, admin)).toMatchObject({
        status: 400,
        body: { message },
      });
    }
    expect(
      await post(disqualifyPath('nope'), JSON.stringify({ reason: 'Ring' }), admin),
    ).toMatchObject({ status: 404, body: { code: 'TOURNAMENT_NOT_FOUND' } });
    expect(
      await post(disqualifyPath(LIVE, 'nobody'), JSON.stringify({ reason: 'Ring' }), admin),
    ).toMatchObject({ status: 404, body: { code: 'NOT_A_PARTICIPANT' } });
    expect(asked).toEqual([]);

    const tooLong = await graphql(DISQUALIFY, { t: LIVE, u: 'x', r: 'x'.repeat(501) }, admin);
    expect(tooLong.errors?.[0]).toMatchObject({
      message: 'reason must be at most 500 characters',
      extensions: { code: 'BAD_REQUEST' },
    });
    const unknown = await graphql(DISQUALIFY, { t: 'nope', u: 'x', r: 'Ring' }, admin);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('TOURNAMENT_NOT_FOUND');
  });

  it('disqualifies over GraphQL with the same answer as REST', async () => {
    const answer = await graphql(
      DISQUALIFY,
      { t: LIVE, u: `user-${CHEAT_EMAIL}`, r: 'Ring of accounts' },
      admin,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.disqualifyParticipant).toEqual({
      tournamentId: LIVE,
      userId: `user-${CHEAT_EMAIL}`,
      reason: 'Ring of accounts',
      duringGame: true,
      effectiveRound: 2,
      winner: null,
    });
  });

  it('never answers 500 to generated bodies, and the gateway keeps serving', async () => {
    const json = fc.jsonValue().map((value) => JSON.stringify(value));
    const reasonBody = fc
      .oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string()), fc.object())
      .map((reason) => JSON.stringify({ reason }));
    const raw = fc.string({ maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(json, reasonBody, raw),
        fc.constantFrom(LIVE, 'nope', ' ', '%20'),
        async (body, tournamentId) => {
          const { status } = await post(disqualifyPath(tournamentId), body, admin);
          expect([200, 400, 404]).toContain(status);
          // A player learns nothing but 403, unless the body is not JSON at all (the edge's 400).
          const refused = await post(disqualifyPath(tournamentId), body, player);
          expect(refused.status === 403 || refused.body.message === 'Malformed request').toBe(true);
        },
      ),
      { numRuns: 150, seed: 28 },
    );
    expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
  });

  it('shows who was disqualified and why in the statistics and the details, REST and GraphQL', async () => {
    const statistics = await get(`/api/tournaments/${PLAYED}/statistics`, admin);
    expect(statistics.status).toBe(200);
    expect(statistics.body).toMatchObject({
      disqualifiedCount: 1,
      participants: [
        { username: 'ben', isDisqualified: false, disqualificationReason: null },
        {
          username: 'cheat',
          isEliminated: true,
          eliminatedInRound: 2,
          isDisqualified: true,
          disqualificationReason: 'Ring of accounts',
        },
        { username: 'cat', isDisqualified: false },
      ],
    });
    // The statistics are public; the administrator's reason is not.
    const asVisitor = await get(`/api/tournaments/${PLAYED}/statistics`);
    expect(asVisitor.body).toMatchObject({
      disqualifiedCount: 1,
      participants: [
        { username: 'ben', isDisqualified: false, disqualificationReason: null },
        { username: 'cheat', isDisqualified: true, disqualificationReason: null },
        { username: 'cat', isDisqualified: false },
      ],
    });
    const asPlayer = await get(`/api/tournaments/${PLAYED}/statistics`, player);
    expect(asPlayer.body).toMatchObject({
      participants: [{}, { username: 'cheat', disqualificationReason: null }, {}],
    });
    // ... but the participant themself reads it.
    const asThemself = await get(`/api/tournaments/${PLAYED}/statistics`, cheat);
    expect(asThemself.body).toMatchObject({
      participants: [{}, { username: 'cheat', disqualificationReason: 'Ring of accounts' }, {}],
    });
    const details = await get(`/api/admin/tournaments/${PLAYED}/details`, admin);
    expect(details.body).toMatchObject({
      rounds: [
        {
          roundNumber: 2,
          eliminatedPlayers: [
            {
              username: 'cheat',
              isOfflinePlayer: false,
              disqualificationReason: 'Ring of accounts',
            },
          ],
        },
      ],
    });
    const viaGraphql = await graphql(
      `
        query ($id: ID!) {
          tournamentStatistics(tournamentId: $id) {
            disqualifiedCount
            participants {
              username
              isDisqualified
              disqualificationReason
            }
          }
          tournamentDetails(tournamentId: $id) {
            rounds {
              eliminatedPlayers {
                username
                disqualificationReason
              }
            }
          }
        }
      `,
      { id: PLAYED },
      admin,
    );
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data).toEqual({
      tournamentStatistics: {
        disqualifiedCount: 1,
        participants: [
          { username: 'ben', isDisqualified: false, disqualificationReason: null },
          { username: 'cheat', isDisqualified: true, disqualificationReason: 'Ring of accounts' },
          { username: 'cat', isDisqualified: false, disqualificationReason: null },
        ],
      },
      tournamentDetails: {
        rounds: [
          {
            eliminatedPlayers: [{ username: 'cheat', disqualificationReason: 'Ring of accounts' }],
          },
        ],
      },
    });
  });

  describe('the player hears it live', () => {
    const origin = () => gateway.url('');
    const subscribed = async (cookie: string) => {
      const client = await openWs(wsUrlOf(gateway.url('/ws')), { origin: origin(), cookie });
      sockets.push(client);
      client.send({ type: 'subscribe_tournament', tournamentId: LIVE });
      return {
        client,
        snapshot: await client.waitFor((m) => m.type === 'game_state_update'),
      };
    };
    const gql = (cookie: string) => {
      const client = graphqlWsClient(wsUrlOf(gateway.url('/graphql')), {
        origin: origin(),
        cookie,
      });
      disposers.push(() => client.dispose());
      return client;
    };
    const EVENTS = /* GraphQL */ `
      subscription ($id: ID!) {
        gameEvents(tournamentId: $id) {
          __typename
          ... on GameSnapshot {
            game {
              player {
                isEliminated
                disqualificationReason
              }
            }
          }
          ... on ParticipantDisqualified {
            roundNumber
            reason
            afterGame
          }
          ... on RoundCompleted {
            roundNumber
          }
        }
      }
    `;
    const publish = (...events: Parameters<typeof gameEvent>[1][]) =>
      gateway.bus.publish(
        topics.gameEvents.name,
        events.map((kind) => encodeGameEvent(gameEvent(LIVE, kind))),
      );

    it('on /ws and graphql-ws: only the disqualified player gets the message, with the reason', async () => {
      const mine = await subscribed(cheat);
      const theirs = await subscribed(player);
      const visitor = await subscribed('');
      const myFeed = feedOf(gql(cheat), EVENTS, { id: LIVE });
      const theirFeed = feedOf(gql(player), EVENTS, { id: LIVE });
      await Promise.all([myFeed.waitForCount(1), theirFeed.waitForCount(1)]);

      await publish(
        {
          case: 'participantDisqualified',
          value: {
            userId: `user-${CHEAT_EMAIL}`,
            username: 'cheat',
            reason: 'Ring of accounts',
            roundNumber: 2,
          },
        },
        {
          case: 'roundCompleted',
          value: { roundNumber: 2, eliminatedCount: 1, remainingCount: 1 },
        },
      );
      const notice = await mine.client.waitFor((m) => m.type === 'player_disqualified');
      expect(notice).toEqual({
        type: 'player_disqualified',
        tournamentId: LIVE,
        gameId: `game-${LIVE}`,
        roundNumber: 2,
        reason: 'Ring of accounts',
        afterGame: false,
      });
      // The round's end, after it, reaches everyone: the others had their chance at the notice.
      const isCompleted = (m: ServerMessageLike) => m.type === 'round_completed';
      for (const { client } of [mine, theirs, visitor]) await client.waitFor(isCompleted);
      for (const { client } of [theirs, visitor]) {
        expect(client.messages.map((m) => m.type)).not.toContain('player_disqualified');
      }

      await Promise.all([myFeed.waitForCount(3), theirFeed.waitForCount(2)]);
      expect(myFeed.values[1]?.data?.gameEvents).toEqual({
        __typename: 'ParticipantDisqualified',
        roundNumber: 2,
        reason: 'Ring of accounts',
        afterGame: false,
      });
      expect(myFeed.values[2]?.data?.gameEvents).toMatchObject({ __typename: 'RoundCompleted' });
      expect(theirFeed.values.map((value) => value.data?.gameEvents)).toEqual([
        expect.objectContaining({ __typename: 'GameSnapshot' }),
        { __typename: 'RoundCompleted', roundNumber: 2 },
      ]);

      // Again after the game (the sockets' users are known now): still the player alone.
      await publish(
        {
          case: 'participantDisqualified',
          value: {
            userId: `user-${CHEAT_EMAIL}`,
            username: 'cheat',
            reason: 'Ring of accounts',
            afterGame: true,
          },
        },
        {
          case: 'roundCompleted',
          value: { roundNumber: 3, eliminatedCount: 0, remainingCount: 1 },
        },
      );
      const isThird = (m: ServerMessageLike) => m.type === 'round_completed' && m.roundNumber === 3;
      for (const { client } of [mine, theirs, visitor]) await client.waitFor(isThird);
      expect(mine.client.messages.filter((m) => m.type === 'player_disqualified')).toHaveLength(2);
      for (const { client } of [theirs, visitor]) {
        expect(client.messages.map((m) => m.type)).not.toContain('player_disqualified');
      }
      await Promise.all([myFeed.waitForCount(5), theirFeed.waitForCount(3)]);
      expect(myFeed.values[3]?.data?.gameEvents).toMatchObject({
        __typename: 'ParticipantDisqualified',
        afterGame: true,
        roundNumber: 0,
      });
      expect(theirFeed.values).toHaveLength(3);
    });

    it("carries the reason in the player's snapshot (PlayerView.disqualification_reason)", async () => {
      await post(disqualifyPath(), JSON.stringify({ reason: 'Ring of accounts' }), admin);
      const { snapshot } = await subscribed(cheat);
      expect(snapshot).toMatchObject({
        gameState: { player: { disqualificationReason: 'Ring of accounts' } },
      });
      const other = await subscribed(player);
      expect(other.snapshot).toMatchObject({
        gameState: { player: { disqualificationReason: null } },
      });
      const feed = feedOf(gql(cheat), EVENTS, { id: LIVE });
      await feed.waitForCount(1);
      expect(feed.values[0]?.data?.gameEvents).toMatchObject({
        game: { player: { isEliminated: false, disqualificationReason: 'Ring of accounts' } },
      });
    });
  });
});
