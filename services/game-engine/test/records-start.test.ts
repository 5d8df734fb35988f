import { randomUUID } from 'node:crypto';
import { createGameReads, createGameRecords, type GameRecords } from '../src/persistence';
import {
  publishRoundOneVotes,
  recordGameEvents,
  recordsWith,
  startEngine,
  startInfrastructure,
  startOneSecondGame,
  waitFor,
} from './support';

/**
 * The game's start record (a document per participant: 10,000 inserts in a large game) is
 * written in the background once round 1's results are out, and every record write waits
 * GAME_RECORDS_DELAY_MS, so that it competes neither with round 1's votes nor with the tally
 * and the results of another game closing at the same moment on the replica — or until the game
 * ends, whichever comes first: its end is in the records before it is announced.
 */
describe('the game-start record', () => {
  /**
   * Plays a one-round game; answers the live phase each time the start record was written.
   * With `stopDuringResults`, the engine stops cleanly while round 1's results show, its
   * records still waiting for their delay.
   */
  async function playOneRound(
    recordsDelayMs: number,
    stopDuringResults = false,
  ): Promise<Array<string | undefined>> {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    const phases: Array<string | undefined> = [];
    const tournamentId = randomUUID();
    const watched = (records: GameRecords) =>
      recordsWith(records, {
        gameStarted: async (game) => {
          // The live phase when the write starts (an in-memory store: no wait). `engine` is
          // assigned below; the write only happens once the game runs.
          phases.push((await engine.app.live.state(tournamentId))?.phase);
          await records.gameStarted(game);
        },
      });
    const engine = await startEngine(
      infra.infrastructure,
      'engine-start',
      { GAME_RECORDS_DELAY_MS: String(recordsDelayMs) },
      { records: (context) => watched(createGameRecords(context.infrastructure.documents)) },
    );
    const recorder = await recordGameEvents(bus, 'start-record-recorder');
    try {
      const players = ['ann', 'bob', 'cyd'];
      const gameId = await startOneSecondGame(bus, engine.app, recorder, tournamentId, players);
      // ann alone picks image 0 and wins; bob and cyd pick 1.
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 1],
        ['cyd', 1],
      ]);
      const reads = createGameReads(documents);
      if (stopDuringResults) {
        await waitFor(
          async () => (await engine.app.live.state(tournamentId))?.phase === 'results',
          "round 1's results",
          10_000,
        );
        expect(await reads.statistics(tournamentId)).toBeNull(); // the records wait for their delay
        await engine.group.stop();
        // Stopped: whatever was written is all there will be.
        const statistics = await reads.statistics(tournamentId);
        expect(statistics?.participants.map((p) => p.username).sort()).toEqual(players);
        expect(statistics?.roundsPlayed).toBe(1);
        return phases;
      }
      await waitFor(
        async () => (await reads.history()).some((entry) => entry.gameId === gameId),
        'the game in the history',
        10_000,
      );
      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.participants.map((p) => p.username).sort()).toEqual(players);
      return phases;
    } finally {
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }

  it("is asked for once round 1's results are published, and the records come out complete", async () => {
    // Without a delay the write starts when asked: during round 1's results, not before them.
    // (The game's end writes it once more, idempotently.)
    expect((await playOneRound(0))[0]).toBe('results');
  });

  it('and every record waiting for its delay are written when the engine stops cleanly', async () => {
    // A delay far longer than the test: only the clean stop can write them.
    expect((await playOneRound(60_000, true))[0]).toBe('results');
  });

  it('is written GAME_RECORDS_DELAY_MS after it was asked for, or at the end of the game', async () => {
    // Results show for 1 s and the game has one round: it is over before the 3 s are.
    expect((await playOneRound(3_000))[0]).toBe('finished');
  });
});
