import { randomUUID } from 'node:crypto';
import { createGameReads, createGameRecords, type GameRecords } from '../src/persistence';
import {
  publishRoundOneVotes,
  recordGameEvents,
  startEngine,
  startInfrastructure,
  startOneSecondGame,
  waitFor,
} from './support';

/**
 * Issue 38: the end of a game does not wait on MongoDB. With the documents store not answering
 * (a stopped FerretDB: every write hangs), `game_ended` is still published — after at most
 * `GAME_END_RECORDS_WAIT_MS` of waiting for the records — and the records catch up, complete,
 * once the store answers again, written once; the game stays active until they are written.
 */
describe('the end of a game with the documents store down', () => {
  it('publishes game_ended while the store is down, and writes the records once it is back', async () => {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    let back: () => void = () => undefined;
    const storeBack = new Promise<void>((resolve) => (back = resolve));
    let down = false;
    let waitingWrites = 0;
    /** The end's record writes, per game. */
    const endWrites = new Map<string, number>();
    /** Every write waits while the store is down (a stopped server answers nothing). */
    const stalled = (records: GameRecords): GameRecords => {
      const wrap =
        <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
        async (...args: A) => {
          if (down) {
            waitingWrites += 1;
            await storeBack;
          }
          await write(...args);
        };
      return {
        gameStarted: wrap((game) => records.gameStarted(game)),
        participantsJoined: wrap((gameId, participants) =>
          records.participantsJoined(gameId, participants),
        ),
        roundResolved: wrap((round) => records.roundResolved(round)),
        gameEnded: wrap((end) => {
          endWrites.set(end.gameId, (endWrites.get(end.gameId) ?? 0) + 1);
          return records.gameEnded(end);
        }),
        participantsDisqualified: wrap((gameId, marks) =>
          records.participantsDisqualified(gameId, marks),
        ),
        finishedGame: (tournamentId) => records.finishedGame(tournamentId),
        winnerRedecided: (change) => records.winnerRedecided(change),
      };
    };
    const engine = await startEngine(
      infra.infrastructure,
      'engine-records-down',
      { GAME_END_RECORDS_WAIT_MS: '1000' },
      { records: (context) => stalled(createGameRecords(context.infrastructure.documents)) },
    );
    const recorder = await recordGameEvents(bus, 'records-down-recorder');
    const reads = createGameReads(documents);
    try {
      const tournamentId = randomUUID();
      const gameId = await startOneSecondGame(bus, engine.app, recorder, tournamentId, [
        'ann',
        'bob',
        'cyd',
      ]);
      // The store goes away before any of the game's records are written.
      down = true;
      // ann alone picks image 0 and wins round 1, and with it the game.
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 1],
        ['cyd', 1],
      ]);
      const ended = () =>
        recorder.events.find(
          (event) => event.tournamentId === tournamentId && event.kind.case === 'gameEnded',
        );
      await waitFor(() => ended() !== undefined, 'game_ended with the store down', 15_000);
      expect(ended()!.kind.value).toMatchObject({ winnerUserId: 'ann' });
      // Announced while every record write of the game still waits for the store.
      expect(down).toBe(true);
      expect(waitingWrites).toBeGreaterThan(0);
      expect((await reads.history()).some((entry) => entry.gameId === gameId)).toBe(false);
      // The game stays active until its records are written.
      expect(await engine.app.live.activeGames()).toContain(tournamentId);

      down = false;
      back();
      await waitFor(
        async () => (await reads.history()).some((entry) => entry.gameId === gameId),
        'the records to catch up',
        20_000,
      );
      const details = await reads.details(tournamentId);
      expect(details?.winner).toEqual({ username: 'ann' });
      expect(details?.rounds.map((round) => round.roundNumber)).toEqual([1]);
      await waitFor(
        async () => !(await engine.app.live.activeGames()).includes(tournamentId),
        'the game done once recorded',
        10_000,
      );
      // The end's record written once: the retries after the announcement joined the write
      // the end left running, rather than starting another beside it.
      expect(endWrites.get(gameId)).toBe(1);
      // Announced once by this replica.
      expect(
        recorder.events.filter(
          (event) => event.tournamentId === tournamentId && event.kind.case === 'gameEnded',
        ),
      ).toHaveLength(1);
    } finally {
      back();
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }, 60_000);
});
