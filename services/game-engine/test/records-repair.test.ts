import { randomUUID } from 'node:crypto';
import { ComponentGroup, createMetricsRegistry } from '@underdog/kit';
import { TournamentStatus } from '@underdog/proto';
import { actors, testContext } from '@underdog/test-support';
import { createGameEngineModule, gameEngineConfig } from '../src';
import { createGameReads, createGameRecords, type GameRecords } from '../src/persistence';
import {
  publishLifecycle,
  recordGameEvents,
  silentLogger,
  startInfrastructure,
  tournamentMessage,
  voteMessage,
  waitFor,
} from './support';

/** A verified user's actor, on a device of their own. */
const verified = (userId: string) => actors.user(userId, { deviceId: `device-${userId}` });

/**
 * The round loop never waits for MongoDB: a round's records are written in the background. When
 * the replica writing them dies (the e2e test's SIGKILL left 44 eliminations unwritten), the one
 * that ends the game writes the whole game's records again from the live store, so the records
 * come out complete.
 */
describe('the records of a game whose writer died', () => {
  it('are completed at the end of the game from the live store', async () => {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    // Round 1's first write is lost, as if its replica had died before making it.
    let lost = 0;
    const lossy = (records: GameRecords): GameRecords => ({
      gameStarted: (game) => records.gameStarted(game),
      participantsJoined: (gameId, participants) =>
        records.participantsJoined(gameId, participants),
      roundResolved: async (round) => {
        if (round.roundNumber === 1 && lost === 0) {
          lost += 1;
          return;
        }
        await records.roundResolved(round);
      },
      gameEnded: (end) => records.gameEnded(end),
    });
    const app = createGameEngineModule(
      {
        ...testContext(infra.infrastructure, { logger: silentLogger, instanceId: 'engine-repair' }),
        registry: createMetricsRegistry('engine-repair'),
      },
      gameEngineConfig({ GAME_RESULTS_SECONDS: '1', GAME_SWEEP_MS: '50' }),
      {
        records: (context) => lossy(createGameRecords(context.infrastructure.documents)),
      },
    );
    const group = new ComponentGroup(silentLogger, app.components);
    await group.start();
    const recorder = await recordGameEvents(bus, 'repair-recorder');
    try {
      const tournamentId = randomUUID();
      await publishLifecycle(
        bus,
        tournamentId,
        {
          case: 'created',
          value: { tournament: tournamentMessage(tournamentId, TournamentStatus.UPCOMING, 1) },
        },
        `${tournamentId}:created`,
      );
      await waitFor(async () => (await app.live.state(tournamentId)) !== undefined, 'tournament');
      for (const user of ['ann', 'bob', 'cyd', 'dan']) {
        await app.players.join(verified(user), tournamentId);
      }
      await publishLifecycle(
        bus,
        tournamentId,
        {
          case: 'live',
          value: { tournament: tournamentMessage(tournamentId, TournamentStatus.LIVE, 1) },
        },
        `${tournamentId}:live`,
      );
      await waitFor(
        () => recorder.events.some((event) => event.kind.case === 'roundVotingStarted'),
        'round 1',
      );
      const gameId = recorder.events.find((event) => event.kind.case === 'gameStarted')!.gameId;
      // ann alone picks image 0 and wins; bob and cyd pick 1; dan does not vote.
      await bus.publish(
        'game.votes',
        (
          [
            ['ann', 0],
            ['bob', 1],
            ['cyd', 1],
          ] as const
        ).map(([userId, position]) =>
          voteMessage({
            tournamentId,
            gameId,
            voteId: randomUUID(),
            userId,
            roundNumber: 1,
            imageId: `round-1-image-${position}`,
          }),
        ),
      );
      const reads = createGameReads(documents);
      await waitFor(
        async () => (await reads.history()).some((entry) => entry.gameId === gameId),
        'the game in the history',
        10_000,
      );
      expect(lost).toBe(1);
      const details = await reads.details(tournamentId);
      expect(details?.winner).toEqual({ username: 'ann' });
      expect(details?.rounds.map((round) => round.roundNumber)).toEqual([1]);
      expect(
        details?.rounds[0]?.votes.map((vote) => `${vote.username}:${vote.imageId}`).sort(),
      ).toEqual(['ann:round-1-image-0', 'bob:round-1-image-1', 'cyd:round-1-image-1']);
      expect(details?.rounds[0]?.eliminatedPlayers.map((p) => p.username).sort()).toEqual([
        'bob',
        'cyd',
        'dan',
      ]);
      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.roundsPlayed).toBe(1);
      expect(
        statistics?.participants
          .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
          .sort(),
      ).toEqual(['ann:false:undefined', 'bob:true:1', 'cyd:true:1', 'dan:true:1']);
    } finally {
      await recorder.stop();
      await group.stop();
      await infra.stop();
    }
  });
});
