import type { GameState, StoredBallot, StoredDisqualification } from '@underdog/live-game';
import { timestampFromDate } from '@underdog/proto';
import { roundImages } from '@underdog/rules';
import { roundCloseField, roundFactsField, type RoundClose } from '../../adapters/live-games';
import { checkRevealedSeed } from '../../domain/draw';
import { resolveRound, roundLeavers } from '../../domain/resolution';
import { roundRecord } from '../game-facts';
import type { Step, StepContext } from './context';

/**
 * tallying → results, in stored steps none of which grows with the audience:
 * 1. the round resolved from the alive set and the ballots (each read in chunks), and its close
 *    stored (`RoundClose`: results, winning images, counts, the game's end; no player list) —
 *    the phase stays `tallying`;
 * 2. its eliminated sent out in fenced steps of at most 10,000 ids;
 * 3. the results stored (phase `results`), then announced: a snapshot read after `RoundResults`
 *    never shows an eliminated player as still in.
 * A replica that takes the game over between 1 and 3 finds the stored close and sends out who is
 * still to go by the same rule (`roundLeavers`): the alive players who did not vote for a winning
 * image, or are excluded. Neither input moves meanwhile: no vote is applied while tallying, and
 * a disqualification made while tallying names the next round.
 */
export async function tally(game: StepContext, state: GameState): Promise<Step> {
  const { live } = game.deps;
  const [stored, alive, ballots, marks] = await Promise.all([
    live.roundClose(game.tournamentId),
    live.alive(game.tournamentId),
    live.ballots(game.tournamentId, state.round, state.voteSlots),
    live.disqualifications(game.tournamentId),
  ]);
  // Disqualified participants go out at the end of the round their mark names (never later:
  // a mark names this round or the next, see `disqualifyParticipant`).
  const excluded = new Set(
    [...marks].filter(([, mark]) => mark.round <= state.round).map(([userId]) => userId),
  );
  const picks = new Map([...ballots].map(([userId, ballot]) => [userId, ballot.imageId]));
  const inputs = { ballots, marks };
  if (stored?.round === state.round) {
    const leaving = roundLeavers({
      alive,
      ballots: picks,
      winningImageIds: stored.winningImageIds,
      excluded,
    });
    game.log.info(
      { roundNumber: state.round, leaving: leaving.length },
      "resuming the round's close where it stopped",
    );
    return closeRound(game, state, stored, leaving, inputs, true);
  }
  const outcome = resolveRound({
    roundNumber: state.round,
    totalRounds: state.totalRounds,
    imageIds: roundImages(state.round).map((image) => image.id),
    alive,
    ballots: picks,
    drawSeed: state.drawSeed,
    excluded,
  });
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
    eliminatedCount: outcome.eliminated.length,
    remainingCount: outcome.advanced.length,
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
  return closeRound(game, state, close, outcome.eliminated, inputs, false);
}

interface RoundInputs {
  ballots: Map<string, StoredBallot>;
  marks: Map<string, StoredDisqualification>;
}

/** Steps 2 and 3 of `tally`: the eliminations, then the results stored and announced. */
async function closeRound(
  game: StepContext,
  state: GameState,
  close: RoundClose,
  leaving: readonly string[],
  { ballots, marks }: RoundInputs,
  resumed: boolean,
): Promise<Step> {
  const { live, timings, metrics } = game.deps;
  const at = { phase: 'tallying', round: state.round } as const;
  if (!(await game.eliminate(at, leaving))) return 0;
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
    // After a takeover some went out before: the round's eliminated are then the store's.
    const eliminated = resumed ? await live.eliminatedIn(game.tournamentId, state.round) : leaving;
    game.records.recordStart(state.round, eliminated);
    game.records.record('roundResolved', () =>
      game.deps.records.roundResolved(
        roundRecord(state, state.round, ballots, eliminated, {
          startedAt: state.roundStartedAt,
          endedAt: close.endedAt,
          results: close.results,
        }),
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
