import { randomUUID } from 'node:crypto';
import type { EventBus } from '@underdog/bus';
import { timestampDate } from '@underdog/proto';
import {
  expectCydWonAlone,
  firstEvent,
  gatedGameEvents,
  openTournament,
  publishVotesCydWins,
  startEngineOnStore,
  startGame,
} from './fault-support';
import { startInfrastructure, waitFor } from './support';

/** How long the bus holds the game's start back: most of a 3-second round. */
const BUS_SLOW_MS = 2_000;
const ROUND_SECONDS = 3;

/**
 * `bus` with `game_started` published `BUS_SLOW_MS` late, as a slow or loaded bus does: the engine
 * publishes it between round 1's step and the round's announcement.
 */
const slowGameStart = (bus: EventBus): EventBus =>
  gatedGameEvents(bus, async (kind) => {
    if (kind === 'gameStarted') await new Promise((resolve) => setTimeout(resolve, BUS_SLOW_MS));
  });

/**
 * Issue 38: a round's deadline runs from its announcement. The engine stores round 1's deadline
 * when its step starts; a store or bus slow between that step and the announcement (here the game's
 * start published 2 s late, in a 3 s round) used to leave the players a second to vote, and the
 * round closed with votes cast well inside the round they were shown.
 */
describe('a round announced late', () => {
  it('gives the players the whole round from its announcement, and counts the votes cast in it', async () => {
    const infra = await startInfrastructure();
    const { store } = infra.infrastructure;
    const tournamentId = `late-${randomUUID()}`;
    const run = await startEngineOnStore(
      store,
      `late-${randomUUID()}`,
      {},
      slowGameStart(infra.infrastructure.bus),
    );
    try {
      const { bus, engine, recorder } = run;
      await openTournament(bus, engine, tournamentId, ROUND_SECONDS, ['ann', 'bob', 'cyd']);
      const gameId = await startGame(bus, recorder, tournamentId, ROUND_SECONDS);
      const heardAt = Date.now();
      const opened = firstEvent(recorder, 'roundVotingStarted')!;
      const started = firstEvent(recorder, 'gameStarted')!;
      const announced = opened.kind.value as { phaseEndsAt?: Parameters<typeof timestampDate>[0] };
      const deadline = timestampDate(announced.phaseEndsAt!).getTime();
      // The whole round from the announcement (the test hears it within its poll of 10 ms).
      expect(deadline - heardAt).toBeGreaterThan(ROUND_SECONDS * 1000 - 500);
      // Dated when it was announced, after the late game_started.
      expect(timestampDate(opened.occurredAt!).getTime()).toBeGreaterThanOrEqual(
        timestampDate(started.occurredAt!).getTime() + BUS_SLOW_MS,
      );
      // What the votes' admission and their application read is the announced deadline.
      expect((await engine.app.live.state(tournamentId))?.votingEndsAt).toBe(deadline);

      // Past the deadline the step stored (about a second after the announcement), the votes of
      // a round still open.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await publishVotesCydWins(bus, tournamentId, gameId);
      await waitFor(() => firstEvent(recorder, 'gameEnded') !== undefined, 'the end', 20_000);
      expectCydWonAlone(recorder);
    } finally {
      await run.stop();
      await infra.stop();
    }
  }, 30_000);
});
