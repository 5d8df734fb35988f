import type { GameState, StoredDisqualification } from '@underdog/live-game';
import { timestampFromDate } from '@underdog/proto';
import { roundImages } from '@underdog/rules';
import { roundCloseField, roundFactsField, type RoundClose } from '../../adapters/live-games';
import { checkRevealedSeed } from '../../domain/draw';
import {
  resolveRound,
  roundCounts,
  roundLeavers,
  type GameEnd,
  type RoundCounts,
} from '../../domain/resolution';
import { roundRecord } from '../game-facts';
import type { Step, StepContext } from './context';

/**
 * tallying → results, in stored steps none of which grows with the audience (issue 35, point 4):
 * 1. the round resolved and its close stored (`RoundClose`: results, winning images, counts, the
 *    game's end; no player list) — the phase stays `tallying`. The counts are the K slots' tallies
 *    (the votes applied, each once by its id): a round that cannot end the game needs nothing
 *    else — who is left is the winning images' votes less the excluded among them. A round that
 *    may end it (the last one, or at most one player left) reads the alive set and the ballots
 *    (in chunks) and `resolveRound` names the winner or makes the draw;
 * 2. its eliminated sent out chunk by chunk: each SSCAN step of the alive set (≤ 10,000), those
 *    steps' ballots read by HMGET, the leavers (`roundLeavers`) sent out in a fenced step — the
 *    engine never holds the whole audience, and its event loop turns between the steps, so the
 *    game's lease is renewed however large the round;
 * 3. the results stored (phase `results`), then announced: a snapshot read after `RoundResults`
 *    never shows an eliminated player as still in.
 * A replica that takes the game over between 1 and 3 finds the stored close and runs step 2 again
 * over who is still in, by the same rule. Neither input moves meanwhile: no vote is applied while
 * tallying, and a disqualification made while tallying names the next round.
 */
export async function tally(game: StepContext, state: GameState): Promise<Step> {
  const { live } = game.deps;
  const [stored, marks] = await Promise.all([
    live.roundClose(game.tournamentId),
    live.disqualifications(game.tournamentId),
  ]);
  // Disqualified participants go out at the end of the round their mark names (never later:
  // a mark names this round or the next, see `disqualifyParticipant`).
  const excluded = new Set(
    [...marks].filter(([, mark]) => mark.round <= state.round).map(([userId]) => userId),
  );
  if (stored?.round === state.round) {
    game.log.info({ roundNumber: state.round }, "resuming the round's close where it stopped");
    return closeRound(game, state, stored, excluded, marks);
  }
  const outcome = await resolve(game, state, excluded);
  // The game's end reveals the seed: it must be the committed one (issue 37; throws otherwise).
  if (outcome.end) checkRevealedSeed(state.drawSeed, state.drawCommitment);
  const endedAt = game.now();
  const winner = outcome.end && 'winnerUserId' in outcome.end ? outcome.end.winnerUserId : '';
  const winnerName = winner ? ((await live.player(game.tournamentId, winner))?.username ?? '') : '';
  const close: RoundClose = {
    round: state.round,
    endedAt,
    results: outcome.results,
    totalVotes: outcome.totalVotes,
    winningImageIds: outcome.winningImageIds,
    eliminatedCount: outcome.eliminatedCount,
    remainingCount: outcome.remainingCount,
    end: outcome.end && {
      decidedBy: outcome.end.decidedBy,
      winner: winner
        ? JSON.stringify({ userId: winner, username: winnerName, prize: state.prize })
        : '',
      draw: outcome.end.decidedBy === 'draw' ? JSON.stringify(outcome.end.draw) : '',
      drawOrder: JSON.stringify(outcome.end.order),
    },
  };
  const stepped = await game.advance(
    { phase: 'tallying', round: state.round },
    {
      [roundCloseField]: JSON.stringify(close),
      // Kept for the records: a replica finishing the game writes them again (see `finish`).
      [roundFactsField(state.round)]: JSON.stringify({
        startedAt: state.roundStartedAt,
        endedAt,
        results: outcome.results,
      }),
    },
  );
  if (!stepped) return 0;
  return closeRound(game, state, close, excluded, marks);
}

/** What step 1 decides: the round's counts, how many go and stay, and the game's end if it ends. */
interface Resolved extends RoundCounts {
  eliminatedCount: number;
  remainingCount: number;
  end: GameEnd | undefined;
}

/** Step 1 of `tally`: from the tallies alone unless the round may end the game. */
async function resolve(
  game: StepContext,
  state: GameState,
  excluded: ReadonlySet<string>,
): Promise<Resolved> {
  const { live } = game.deps;
  const imageIds = roundImages(state.round).map((image) => image.id);
  const [votes, aliveCount, excludedImages] = await Promise.all([
    live.tallies(game.tournamentId, state.round, state.voteSlots),
    live.aliveCount(game.tournamentId),
    live.ballotImagesOf(game.tournamentId, state.round, state.voteSlots, [...excluded]),
  ]);
  const counts = roundCounts(imageIds, votes);
  const winning = new Set(counts.winningImageIds);
  const excludedOnWinning = [...excludedImages.values()].filter((image) => winning.has(image));
  const remainingCount =
    counts.results.filter((r) => r.isWinner).reduce((sum, r) => sum + r.votes, 0) -
    excludedOnWinning.length;
  if (state.round < state.totalRounds && remainingCount > 1) {
    return {
      ...counts,
      eliminatedCount: aliveCount - remainingCount,
      remainingCount,
      end: undefined,
    };
  }
  // The round may end the game: who is left, by name, decides how.
  const [alive, ballots] = await Promise.all([
    live.alive(game.tournamentId),
    live.ballots(game.tournamentId, state.round, state.voteSlots),
  ]);
  const outcome = resolveRound({
    roundNumber: state.round,
    totalRounds: state.totalRounds,
    imageIds,
    alive,
    ballots: new Map([...ballots].map(([userId, ballot]) => [userId, ballot.imageId])),
    drawSeed: state.drawSeed,
    excluded,
  });
  return {
    results: outcome.results,
    totalVotes: outcome.totalVotes,
    winningImageIds: outcome.winningImageIds,
    eliminatedCount: outcome.eliminated.length,
    remainingCount: outcome.advanced.length,
    end: outcome.end,
  };
}

/** Step 2 of `tally`: the leavers of each chunk of the alive set sent out, chunk by chunk. */
async function eliminateInChunks(
  game: StepContext,
  state: GameState,
  winningImageIds: readonly string[],
  excluded: ReadonlySet<string>,
): Promise<boolean> {
  const { live } = game.deps;
  const at = { phase: 'tallying', round: state.round } as const;
  for await (const chunk of live.aliveInChunks(game.tournamentId)) {
    const ballots = await live.ballotImagesOf(
      game.tournamentId,
      state.round,
      state.voteSlots,
      chunk,
    );
    const leaving = roundLeavers({ alive: chunk, ballots, winningImageIds, excluded });
    if (leaving.length > 0 && !(await game.eliminate(at, leaving))) return false;
  }
  return true;
}

/** Steps 2 and 3 of `tally`: the eliminations, then the results stored and announced. */
async function closeRound(
  game: StepContext,
  state: GameState,
  close: RoundClose,
  excluded: ReadonlySet<string>,
  marks: ReadonlyMap<string, StoredDisqualification>,
): Promise<Step> {
  const { live, timings, metrics } = game.deps;
  const at = { phase: 'tallying', round: state.round } as const;
  if (!(await eliminateInChunks(game, state, close.winningImageIds, excluded))) return 0;
  const now = game.now();
  const moved = await game.advance(at, {
    phase: 'results',
    phaseEndsAt: now + timings.resultsMs,
    results: JSON.stringify(close.results),
    roundEliminated: close.eliminatedCount,
    [roundCloseField]: '',
    ...(close.end ?? {}),
  });
  if (!moved) return 0;
  const disqualifiedNow = [...marks]
    .filter(([, mark]) => mark.round === state.round)
    .map(([userId, mark]) => ({ userId, reason: mark.reason }))
    .sort((a, b) => a.userId.localeCompare(b.userId));
  await game.announce({ phase: 'results', round: state.round }, async () => {
    for (const { userId, reason } of disqualifiedNow) {
      await game.emit(
        state,
        {
          case: 'participantDisqualified',
          value: {
            userId,
            username: (await live.player(game.tournamentId, userId))?.username ?? '',
            reason,
            roundNumber: state.round,
            afterGame: false,
          },
        },
        `${state.round}:${userId}`,
        now,
      );
    }
    await game.emit(
      state,
      {
        case: 'roundResults',
        value: {
          roundNumber: state.round,
          results: close.results,
          totalVotes: close.totalVotes,
          winningImageIds: close.winningImageIds,
          eliminatedCount: close.eliminatedCount,
          remainingCount: close.remainingCount,
          durationSeconds: Math.round(timings.resultsMs / 1000),
          phaseEndsAt: timestampFromDate(new Date(now + timings.resultsMs)),
        },
      },
      String(state.round),
      now,
    );
    metrics.roundDuration.observe((close.endedAt - state.roundStartedAt) / 1000);
    game.log.info(
      {
        roundNumber: state.round,
        totalVotes: close.totalVotes,
        advanced: close.remainingCount,
        eliminated: close.eliminatedCount,
      },
      'round resolved',
    );
    // The records read the round's eliminated and ballots from the store when they are
    // written, in the background: they are not on the way to the next round.
    const eliminated = () => live.eliminatedIn(game.tournamentId, state.round);
    game.records.recordStart(state.round, eliminated);
    game.records.record('roundResolved', async () =>
      game.deps.records.roundResolved(
        roundRecord(
          state,
          state.round,
          await live.ballots(game.tournamentId, state.round, state.voteSlots),
          await eliminated(),
          { startedAt: state.roundStartedAt, endedAt: close.endedAt, results: close.results },
        ),
      ),
    );
    if (disqualifiedNow.length > 0) {
      game.records.record('participantsDisqualified', () =>
        game.deps.records.participantsDisqualified(state.gameId, disqualifiedNow),
      );
    }
  });
  return 0;
}
