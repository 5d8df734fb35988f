import { randomUUID } from 'node:crypto';
import { topics } from '@underdog/platform';
import { GameEventSchema, TournamentStatus, fromBinary } from '@underdog/proto';
import {
  gamesOn,
  liveGameInfrastructure,
  playerOrigin,
  publishLifecycle,
  startService,
  stopServices,
  tournamentMessage,
  waitFor,
  type LiveGameInfrastructure,
  type ServiceProcess,
  type TournamentFixture,
  startReadsGateway,
} from './live-game-processes';

const STATISTICS = /* GraphQL */ `
  query ($id: ID!) {
    tournamentStatistics(tournamentId: $id) {
      tournament {
        status
      }
      totalRounds
      winner {
        username
      }
    }
  }
`;

/**
 * Issue 26, distributed: a game-engine process on Kafka, Redis and a MongoDB-wire server (the
 * records' default 1 s delay), the gateway's reads in front of it; whoever hears `game_ended` on
 * Kafka and asks for the statistics at once (REST and GraphQL) finds the winner in them.
 */
describe('the end of a game on the engine process (Kafka, Redis, MongoDB-wire)', () => {
  let setup: LiveGameInfrastructure;
  let engine: ServiceProcess;

  beforeAll(async () => {
    setup = await liveGameInfrastructure();
    engine = await startService('game-engine', 'engine-end', {
      ...setup.engineEnv,
      INSTANCE_ID: 'engine-end',
    });
  }, 300_000);
  afterAll(async () => {
    await stopServices(engine ? [engine] : []);
    await setup?.stop();
  });

  it('names the winner in the statistics asked for in the same tick as game_ended arrives', async () => {
    const { infrastructure } = setup;
    const fixture: TournamentFixture = {
      id: randomUUID(),
      title: 'Photo Finish',
      prize: '$50',
      startAt: new Date(),
      roundTimeSeconds: 2,
    };
    const tournamentId = fixture.id;
    const gateway = await startReadsGateway({
      engine,
      fixture,
      status: TournamentStatus.LIVE,
      participantCount: 3,
      name: 'game-end-e2e',
    });
    let answers: Promise<[unknown, unknown]> | undefined;
    let winnerUsername: string | undefined;
    const listener = await infrastructure.bus.subscribe({
      groupId: `game-end-e2e-${randomUUID()}`,
      topics: [topics.gameEvents.name],
      fromBeginning: false,
      handleBatch: async (batch) => {
        for (const message of batch) {
          if (message.key !== tournamentId || !message.value) continue;
          const event = fromBinary(GameEventSchema, message.value);
          if (event.kind.case !== 'gameEnded' || answers) continue;
          winnerUsername = event.kind.value.winnerUsername;
          // VIEW RESULTS at once: in the same tick as the event arrives.
          answers = Promise.all([
            fetch(gateway.url(`/api/tournaments/${tournamentId}/statistics`), {
              headers: { 'x-device-id': 'device-e2e-visitor' },
            }).then((response) => response.json() as Promise<unknown>),
            fetch(gateway.url('/graphql'), {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-device-id': 'device-e2e-visitor' },
              body: JSON.stringify({ query: STATISTICS, variables: { id: tournamentId } }),
            }).then((response) => response.json() as Promise<unknown>),
          ]);
        }
      },
    });
    try {
      const games = gamesOn(infrastructure, engine);
      const run = randomUUID().slice(0, 6);
      const [ann, bob, cyd] = ['ann', 'bob', 'cyd'].map((name) => ({
        id: `${name}-${run}`,
        username: `${name}_${run}`,
      }));
      await publishLifecycle(
        infrastructure,
        tournamentId,
        {
          case: 'created',
          value: { tournament: tournamentMessage(fixture, TournamentStatus.UPCOMING) },
        },
        `${tournamentId}:created`,
      );
      await waitFor(
        async () =>
          games
            .join(playerOrigin(ann!), tournamentId)
            .then(() => true)
            .catch(() => false),
        'the engine to know the tournament',
      );
      for (const player of [bob!, cyd!]) await games.join(playerOrigin(player), tournamentId);
      await publishLifecycle(
        infrastructure,
        tournamentId,
        { case: 'live', value: { tournament: tournamentMessage(fixture, TournamentStatus.LIVE) } },
        `${tournamentId}:live`,
      );
      // ann alone picks image 0 and wins round 1, and with it the game.
      const picks = [
        [ann!, 'round-1-image-0'],
        [bob!, 'round-1-image-1'],
        [cyd!, 'round-1-image-1'],
      ] as const;
      await waitFor(
        async () =>
          games
            .vote(playerOrigin(ann!), {
              tournamentId,
              roundNumber: 1,
              imageId: 'round-1-image-0',
            })
            .then(() => true)
            .catch(() => false),
        "round 1's voting",
      );
      for (const [player, imageId] of picks.slice(1)) {
        await games.vote(playerOrigin(player), { tournamentId, roundNumber: 1, imageId });
      }
      await waitFor(() => answers !== undefined, 'game_ended');
      expect(winnerUsername).toBe(ann!.username);
      const [rest, graphql] = await answers!;
      // The tournament service has not marked it finished yet (its stand-in never does): the
      // game's records say it is, together with its winner.
      expect(rest).toMatchObject({
        tournament: { status: 'finished' },
        totalRounds: 1,
        winner: { username: ann!.username },
      });
      expect(graphql).toEqual({
        data: {
          tournamentStatistics: {
            tournament: { status: 'finished' },
            totalRounds: 1,
            winner: { username: ann!.username },
          },
        },
      });
    } finally {
      await listener.stop();
      await gateway.stop();
    }
  }, 120_000);
});
