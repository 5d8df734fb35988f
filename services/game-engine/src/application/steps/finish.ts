import type { GameState } from '@underdog/live-game';
import { timestampFromDate } from '@underdog/proto';
import type { Participant } from '../../adapters/live-games';
import { prizeAmount } from '../../domain/timings';
import type { GameRecords } from '../../persistence';
import { gameStartedRecord, roundRecord } from '../game-facts';
import type { Step, StepContext } from './context';

type GameEnd = Parameters<GameRecords['gameEnded']>[0];

/**
 * The runners (a game's `StepContext`) that announced their game's end before its records were
 * written: their next `finish` writes the records, and only then is the game done. A replica that
 * takes such a game over announces its end again (the same event ids: consumers are idempotent).
 */
const endsAwaitingRecords = new WeakSet<StepContext>();

/** How soon a game whose end is announced tries its records again. */
const RECORDS_AGAIN_MS = 1_000;

/**
 * Per runner, the end's records being written (or written). The end that gave up waiting for
 * them leaves them running, and its next `finish` joins that write instead of starting a second
 * one beside it or after it, which doubled the store's work just as it came back (issue 38,
 * mongo-at-end's slow catch-up).
 */
const endRecordsWriting = new WeakMap<StepContext, Promise<void>>();

/**
 * The end: the records, the announcement, one outcome per participant; then the game is done.
 * The records are waited for at most `endRecordsWaitMs` (issue 38): with the documents store
 * down, `game_ended` still goes out on time, and the game stays active, in phase `finished`,
 * until its records are written (each step tries them again; a failure is retried as any step).
 */
export async function finish(game: StepContext, state: GameState): Promise<Step> {
  const { live, events } = game.deps;
  const participants = await live.participants(game.tournamentId);
  const endedAt = state.phaseEndsAt || game.now();
  const winner = state.winner;
  const draw = state.draw;
  // The prize's order fixed at the reveal (tally); absent only for a close stored by an older
  // engine mid-upgrade, which the records then recompute by the same rule (`recordedPrizeOrder`).
  const drawOrder =
    state.drawOrder.length > 0 || state.decidedBy === 'no_winner' ? state.drawOrder : undefined;
  const end: GameEnd = {
    gameId: state.gameId,
    endedAt: new Date(endedAt),
    ...(winner
      ? {
          winner: {
            userId: winner.userId,
            username: winner.username,
            ...(state.prize ? { prize: state.prize } : {}),
          },
        }
      : {}),
    ...(draw ? { draw } : {}),
    ...(state.drawSeed ? { drawSeed: state.drawSeed } : {}),
    ...(drawOrder ? { drawOrder } : {}),
  };
  if (endsAwaitingRecords.has(game)) {
    // Announced already: the records, then done (a failure here is retried as any step).
    await recordEndOnce(game, state, participants, end);
    endsAwaitingRecords.delete(game);
    await live.markInactive(game.tournamentId);
    game.log.info({ gameId: state.gameId }, 'the game records caught up with its end');
    return 'done';
  }
  const recorded = await within(
    recordEndOnce(game, state, participants, end),
    game.deps.timings.endRecordsWaitMs,
  );
  if (recorded !== true) {
    game.log.warn(
      { gameId: state.gameId, err: recorded === 'late' ? undefined : recorded },
      recorded === 'late'
        ? 'the game records are late: announcing the end, the records follow'
        : 'the game records failed: announcing the end, the records follow',
    );
  }
  // Still this replica's game after the records (a frozen replica whose lease lapsed stops
  // here: the one that took over announces the end).
  await game.advance({ phase: 'finished', round: state.round }, {});
  await game.emit(
    state,
    {
      case: 'gameEnded',
      value: {
        ...(winner
          ? {
              winnerUserId: winner.userId,
              winnerUsername: winner.username,
              winnerDisplayName: winner.username,
              ...(state.prize ? { prize: state.prize } : {}),
            }
          : {}),
        roundsPlayed: state.round,
        decidedBy: state.decidedBy || 'no_winner',
        // The seed revealed (its SHA-256 was in GameStarted) and, for a draw, its candidates:
        // anyone recomputes the winner from the events alone (tools/verify-draw.ts).
        drawSeed: state.drawSeed,
        ...(state.decidedBy === 'draw' && draw
          ? { drawCandidateUserIds: [...draw.candidateUserIds].sort() }
          : {}),
        // Who gets the prize if the winner is disqualified later, in order (issue 37).
        ...(drawOrder ? { drawOrderUserIds: drawOrder } : {}),
      },
    },
    '0',
  );
  const prize = prizeAmount(state.prize);
  await events.outcomes(
    participants.map((participant) => {
      const out = participant.eliminatedInRound;
      const roundsPlayed = out > 0 ? out : state.round;
      const won = winner?.userId === participant.userId;
      return {
        userId: participant.userId,
        gameId: state.gameId,
        tournamentId: game.tournamentId,
        won,
        prizeAmount: BigInt(won ? prize : 0),
        roundsPlayed,
        roundsWon: out > 0 ? out - 1 : state.round,
        tournamentSize: participants.length,
        eliminatedInRound: out,
        isOfflinePlayer: participant.offlineChoices !== undefined,
        endedAt: timestampFromDate(new Date(endedAt)),
      };
    }),
  );
  game.log.info(
    { gameId: state.gameId, winner: winner?.userId, decidedBy: state.decidedBy },
    'game ended',
  );
  if (recorded !== true) {
    endsAwaitingRecords.add(game);
    return RECORDS_AGAIN_MS;
  }
  await live.markInactive(game.tournamentId);
  return 'done';
}

/**
 * `true` once `work` resolved within `ms`; 'late' if it did not (it goes on, its failure
 * swallowed: the next step writes the records again); its error if it failed in time.
 */
async function within(work: Promise<void>, ms: number): Promise<true | 'late' | unknown> {
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    () => true as const,
    (error: unknown) => ({ error }),
  );
  const outcome = await Promise.race([
    settled,
    new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), ms);
    }),
  ]);
  clearTimeout(timer);
  return typeof outcome === 'object' ? outcome.error : outcome;
}

/** `recordEnd`, once per runner unless it failed (see `endRecordsWriting`). */
function recordEndOnce(
  game: StepContext,
  state: GameState,
  participants: Participant[],
  end: GameEnd,
): Promise<void> {
  const writing = endRecordsWriting.get(game);
  if (writing) return writing;
  // Kept once written (a later `finish` finds the records done); forgotten if it failed, so the
  // next one writes them again.
  const started = recordEnd(game, state, participants, end).catch((error: unknown) => {
    endRecordsWriting.delete(game);
    throw error;
  });
  endRecordsWriting.set(game, started);
  return started;
}

/**
 * The game's end in its records, before `game_ended` is published: whoever hears it — a
 * player pressing VIEW RESULTS, the tournament service marking the tournament finished —
 * reads the winner and every round at once (read-your-writes). The writes still waiting for
 * their delay go now (that delay spares the closes of other games; the end is no close), and
 * a failed write fails the step, which is made again. A runner that did not record the game
 * from its start (it took the game over), or whose write gave up, writes the whole game again.
 */
async function recordEnd(
  game: StepContext,
  state: GameState,
  participants: Participant[],
  end: GameEnd,
): Promise<void> {
  const { records } = game.deps;
  await game.records.flush();
  if (game.records.complete) await records.gameEnded(end);
  else await recordWholeGame(game, state, participants, end);
  // Every disqualification again (idempotent; usually each is recorded at its round already).
  const marks = participants.flatMap((participant) =>
    participant.disqualificationReason === undefined
      ? []
      : [{ userId: participant.userId, reason: participant.disqualificationReason }],
  );
  if (marks.length > 0) await records.participantsDisqualified(state.gameId, marks);
}

/**
 * The whole game's records again, from the live store, in order: its start, every resolved
 * round, its end. Each write is idempotent, so this only adds what is missing — what a replica
 * that died (or froze) had not written yet when another took the game over.
 */
async function recordWholeGame(
  game: StepContext,
  state: GameState,
  participants: Participant[],
  end: GameEnd,
): Promise<void> {
  const { live, records } = game.deps;
  await records.gameStarted(gameStartedRecord(game.tournamentId, state, participants, game.now()));
  for (let round = 1; round <= state.round; round += 1) {
    const facts = await live.roundFacts(game.tournamentId, round);
    if (!facts) continue;
    const eliminated = participants
      .filter((participant) => participant.eliminatedInRound === round)
      .map((participant) => participant.userId);
    const ballots = await live.ballots(game.tournamentId, round, state.voteSlots);
    await records.roundResolved(roundRecord(state, round, ballots, eliminated, facts));
  }
  await records.gameEnded(end);
}
