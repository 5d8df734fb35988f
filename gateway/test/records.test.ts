import { AppError } from '@underdog/kit';
import {
  TournamentStatus,
  timestampFromDate,
  type Actor,
  type MessageInitShape,
  type TournamentSchema,
} from '@underdog/proto';
import {
  cookieFrom,
  errorBody,
  jsonHeaders,
  startTestGateway,
  validPassword,
  type TestGateway,
} from './support';

const T0 = new Date('2030-01-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const tournaments: Record<string, MessageInitShape<typeof TournamentSchema>> = {
  played: {
    id: 'played',
    title: 'Friday Cup',
    status: TournamentStatus.FINISHED,
    startAt: timestampFromDate(T0),
    prize: '$5,000',
    participantCount: 3,
    roundTimeSeconds: 15,
  },
  // Its game has just ended; the tournament service has not marked it finished yet.
  ending: {
    id: 'ending',
    title: 'Photo Finish',
    status: TournamentStatus.LIVE,
    startAt: timestampFromDate(T0),
    participantCount: 3,
    roundTimeSeconds: 15,
  },
  upcoming: {
    id: 'upcoming',
    title: 'Next Cup',
    status: TournamentStatus.UPCOMING,
    startAt: timestampFromDate(at(86_400)),
    participantCount: 4,
    roundTimeSeconds: 15,
  },
};

const playedView = {
  id: 'played',
  title: 'Friday Cup',
  description: null,
  status: 'finished',
  startAt: T0.toISOString(),
  prize: '$5,000',
  participantCount: 3,
  roundTimeSeconds: 15,
};

const recorded = {
  id: 'played',
  title: 'Friday Cup',
  prize: '$5,000',
  startAt: timestampFromDate(T0),
};

/** The stub game-engine: only signed-in callers named in `admins` pass its admin check. */
function requireAdmin(actor: Actor | undefined, admins: Set<string>) {
  if (!actor?.userId) {
    throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
  }
  if (!admins.has(actor.userId)) {
    throw new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' });
  }
}

describe('statistics, history and details at the edge (stub services)', () => {
  let gateway: TestGateway;
  let admins: Set<string>;

  beforeEach(async () => {
    admins = new Set(['user-ann@example.com']);
    gateway = await startTestGateway({
      tournament: {
        getTournament: ({ id }) => {
          const tournament = tournaments[id];
          if (!tournament) {
            throw new AppError('NOT_FOUND', 'Tournament not found', {
              reason: 'TOURNAMENT_NOT_FOUND',
            });
          }
          return { tournament };
        },
        // Issue 28: the played game's prize was confirmed paid (the history's prizePayment).
        listPrizePayments: () => ({
          payments: [
            {
              tournamentId: 'played',
              winnerUserId: 'user-ann',
              winnerUsername: 'ann',
              prize: '$5,000',
              paidAt: timestampFromDate(at(200)),
              paidByUserId: 'admin-1',
              paidByUsername: 'root',
            },
          ],
        }),
      },
      game: {
        // Before its game, the engine counts who joined live and who registered offline.
        getLiveGame: ({ tournamentId }) => {
          if (tournamentId !== 'upcoming') {
            throw new AppError('NOT_FOUND', 'Tournament not found', {
              reason: 'TOURNAMENT_NOT_FOUND',
            });
          }
          return { game: { tournamentId, participantCount: 4, offlineParticipantCount: 1 } };
        },
        getTournamentStatistics: ({ tournamentId }) =>
          tournamentId !== 'played' && tournamentId !== 'ending'
            ? {}
            : {
                statistics: {
                  gameId: 'game-1',
                  finished: true,
                  roundsPlayed: 2,
                  participantCount: 3,
                  onlineParticipantCount: 2,
                  offlineParticipantCount: 1,
                  winnerUsername: 'ann',
                  // Issue 37: the draw's commitment, the revealed seed, the prize's order.
                  drawCommitment: 'c'.repeat(64),
                  drawSeed: 's'.repeat(64),
                  drawOrder: ['ann', 'ben', 'cat'],
                  participants: [
                    { username: 'ann', isEliminated: false, isOfflinePlayer: false },
                    { username: 'ben', isEliminated: true, eliminatedInRound: 2 },
                    {
                      username: 'cat',
                      isEliminated: true,
                      eliminatedInRound: 1,
                      isOfflinePlayer: true,
                    },
                  ],
                },
              },
        listTournamentHistory: ({ actor }) => {
          requireAdmin(actor, admins);
          return {
            items: [
              {
                gameId: 'game-1',
                tournament: recorded,
                winnerUsername: 'ann',
                totalPlayers: 3,
                roundsPlayed: 2,
                endedAt: timestampFromDate(at(100)),
              },
              {
                gameId: 'game-0',
                tournament: { ...recorded, id: 'older', prize: undefined },
                totalPlayers: 2,
                roundsPlayed: 1,
                endedAt: timestampFromDate(at(50)),
              },
            ],
          };
        },
        getTournamentDetails: ({ actor, tournamentId }) => {
          requireAdmin(actor, admins);
          if (tournamentId !== 'played') return {};
          return {
            details: {
              gameId: 'game-1',
              finished: true,
              tournament: recorded,
              winnerUsername: 'ann',
              totalPlayers: 3,
              rounds: [
                {
                  roundNumber: 1,
                  images: [{ id: 'round-1-image-0', url: '/img/1.jpg', alt: 'Lighthouse' }],
                  votes: [
                    {
                      username: 'cat',
                      imageId: 'round-1-image-0',
                      votedAt: timestampFromDate(at(10)),
                      isOfflinePlayer: true,
                    },
                  ],
                  eliminatedPlayers: [{ username: 'cat', isOfflinePlayer: true }],
                },
              ],
            },
          };
        },
      },
    });
  });
  afterEach(() => gateway.stop());

  const get = async (path: string, cookie = '') => {
    const response = await fetch(gateway.url(path), {
      headers: { 'x-device-id': 'device-test-1', ...(cookie ? { cookie } : {}) },
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const signedIn = async () => {
    const response = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ email: 'ann@example.com', password: validPassword }),
    });
    return cookieFrom(response);
  };
  const graphql = async (query: string, cookie = '') => {
    const response = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { ...jsonHeaders, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as {
      data?: Record<string, unknown> | null;
      errors?: Array<{ message: string; extensions?: { code?: string } }>;
    };
  };

  it("answers a played tournament's statistics in the spec's shape, to anyone", async () => {
    expect(await get('/api/tournaments/played/statistics')).toEqual({
      status: 200,
      body: {
        tournament: playedView,
        totalRounds: 2,
        participantBreakdown: { total: 3, online: 2, offline: 1 },
        winner: { username: 'ann' },
        participantCount: 3,
        participants: [
          { username: 'ann', isEliminated: false, eliminatedInRound: null, isOfflinePlayer: false },
          { username: 'ben', isEliminated: true, eliminatedInRound: 2, isOfflinePlayer: false },
          { username: 'cat', isEliminated: true, eliminatedInRound: 1, isOfflinePlayer: true },
        ].map((standing) => ({ ...standing, isDisqualified: false, disqualificationReason: null })),
        disqualifiedCount: 0,
        draw: { commitment: 'c'.repeat(64), seed: 's'.repeat(64), order: ['ann', 'ben', 'cat'] },
      },
    });
  });

  it('shows a tournament whose game has ended finished, together with its winner', async () => {
    const { status, body } = await get('/api/tournaments/ending/statistics');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      tournament: { id: 'ending', status: 'finished' },
      winner: { username: 'ann' },
    });
  });

  it('gives a tournament without a game statistics with no rounds and no winner, its registrants so far', async () => {
    const { status, body } = await get('/api/tournaments/upcoming/statistics');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      tournament: { id: 'upcoming', title: 'Next Cup', status: 'upcoming', prize: null },
      totalRounds: 0,
      participantBreakdown: { total: 4, online: 3, offline: 1 },
      winner: null,
      participantCount: 4,
      participants: [],
    });
  });

  it('answers 404 for the statistics of an unknown tournament', async () => {
    expect(await get('/api/tournaments/nope/statistics')).toEqual({
      status: 404,
      body: errorBody('Tournament not found', 'TOURNAMENT_NOT_FOUND'),
    });
  });

  it('lists the history for an admin, leaving out the winner of a game without one', async () => {
    const { status, body } = await get('/api/admin/tournaments/history', await signedIn());
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        tournament: {
          id: 'played',
          title: 'Friday Cup',
          prize: '$5,000',
          startAt: T0.toISOString(),
        },
        winner: { username: 'ann' },
        totalPlayers: 3,
        totalRounds: 2,
        endedAt: at(100).toISOString(),
        prizePayment: {
          tournamentId: 'played',
          winnerUserId: 'user-ann',
          winnerUsername: 'ann',
          prize: '$5,000',
          paidAt: at(200).toISOString(),
          paidBy: { userId: 'admin-1', username: 'root' },
        },
      },
      {
        tournament: { id: 'older', title: 'Friday Cup', prize: null, startAt: T0.toISOString() },
        totalPlayers: 2,
        totalRounds: 1,
        endedAt: at(50).toISOString(),
        prizePayment: null,
      },
    ]);
  });

  it('answers the details round by round for an admin', async () => {
    const cookie = await signedIn();
    expect(await get('/api/admin/tournaments/played/details', cookie)).toEqual({
      status: 200,
      body: {
        tournament: playedView,
        winner: { username: 'ann' },
        totalPlayers: 3,
        rounds: [
          {
            roundNumber: 1,
            images: [{ id: 'round-1-image-0', alt: 'Lighthouse' }],
            votes: [
              {
                username: 'cat',
                imageId: 'round-1-image-0',
                votedAt: at(10).toISOString(),
                isOfflinePlayer: true,
              },
            ],
            eliminatedPlayers: [
              { username: 'cat', isOfflinePlayer: true, disqualificationReason: null },
            ],
          },
        ],
        // Recorded before the commitment was (none in the stub's answer).
        draw: null,
      },
    });
    const upcoming = await get('/api/admin/tournaments/upcoming/details', cookie);
    expect(upcoming.body).toMatchObject({ winner: null, totalPlayers: 4, rounds: [] });
  });

  it('refuses history and details with 401 to a visitor and 403 to a non-admin', async () => {
    const refusedVisitor = errorBody('Not authenticated', 'UNAUTHENTICATED');
    expect(await get('/api/admin/tournaments/history')).toEqual({
      status: 401,
      body: refusedVisitor,
    });
    expect(await get('/api/admin/tournaments/played/details')).toEqual({
      status: 401,
      body: refusedVisitor,
    });
    admins.clear();
    const cookie = await signedIn();
    const forbidden = {
      status: 403,
      body: errorBody('Admin access required', 'ADMIN_ONLY'),
    };
    expect(await get('/api/admin/tournaments/history', cookie)).toEqual(forbidden);
    expect(await get('/api/admin/tournaments/played/details', cookie)).toEqual(forbidden);
  });

  it('answers the same in GraphQL, with ADMIN_ONLY for a non-admin', async () => {
    const statistics = await graphql(
      '{ tournamentStatistics(tournamentId: "played") { tournament { title status startAt prize } totalRounds participantBreakdown { total online offline } winner { username } participantCount participants { username isEliminated } } }',
    );
    expect(statistics.data).toEqual({
      tournamentStatistics: {
        tournament: {
          title: 'Friday Cup',
          status: 'finished',
          startAt: T0.toISOString(),
          prize: '$5,000',
        },
        totalRounds: 2,
        participantBreakdown: { total: 3, online: 2, offline: 1 },
        winner: { username: 'ann' },
        participantCount: 3,
        participants: [
          { username: 'ann', isEliminated: false },
          { username: 'ben', isEliminated: true },
          { username: 'cat', isEliminated: true },
        ],
      },
    });

    const cookie = await signedIn();
    const history = await graphql(
      '{ tournamentHistory { tournament { id title prize startAt } winner { username } } }',
      cookie,
    );
    expect(history.data).toEqual({
      tournamentHistory: [
        {
          tournament: {
            id: 'played',
            title: 'Friday Cup',
            prize: '$5,000',
            startAt: T0.toISOString(),
          },
          winner: { username: 'ann' },
        },
        {
          tournament: { id: 'older', title: 'Friday Cup', prize: null, startAt: T0.toISOString() },
          winner: null,
        },
      ],
    });
    const details = await graphql(
      '{ tournamentDetails(tournamentId: "played") { winner { username } totalPlayers rounds { roundNumber images { id alt } votes { username imageId votedAt isOfflinePlayer } eliminatedPlayers { username isOfflinePlayer } } } }',
      cookie,
    );
    expect(details.data).toEqual({
      tournamentDetails: {
        winner: { username: 'ann' },
        totalPlayers: 3,
        rounds: [
          {
            roundNumber: 1,
            images: [{ id: 'round-1-image-0', alt: 'Lighthouse' }],
            votes: [
              {
                username: 'cat',
                imageId: 'round-1-image-0',
                votedAt: at(10).toISOString(),
                isOfflinePlayer: true,
              },
            ],
            eliminatedPlayers: [{ username: 'cat', isOfflinePlayer: true }],
          },
        ],
      },
    });

    admins.clear();
    const refused = await graphql('{ tournamentHistory { totalPlayers } }', cookie);
    expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['ADMIN_ONLY']);
    const visitor = await graphql('{ tournamentDetails(tournamentId: "played") { totalPlayers } }');
    expect(visitor.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
  });
});
