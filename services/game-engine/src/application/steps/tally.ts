import type { GameState } from '@underdog/live-game';
import { timestampFromDate } from '@underdog/proto';
import { roundImages } from '@underdog/rules';
import { roundFactsField, type LiveGames } from '../../adapters/live-games';
import { resolveRound, type RoundOutcome } from '../../domain/resolution';
import { roundRecord } from '../game-facts';
import type { Step, StepContext } from './context';

/** tallying → results: the round resolved, its eliminated out, announced and recorded. */
export async function tally(game: StepContext, state: GameState): Promise<Step> {
  const { live, timings, metrics } = game.deps;
  const [alive, ballots, marks] = await Promise.all([
    live.alive(game.tournamentId),
    live.ballots(game.tournamentId, state.round),
    live.disqualifications(game.tournamentId),
  ]);
  // Disqualified participants go out at the end of the round their mark names (never later:
  // a mark names this round or the next, see `disqualifyParticipant`).
  const excluded = new Set(
    [...marks].filter(([, mark]) => mark.round <= state.round).map(([userId]) => userId),
  );
  const disqualifiedNow = [...marks]
    .filter(([, mark]) => mark.round === state.round)
    .map(([userId, mark]) => ({ userId, reason: mark.reason }))
    .sort((a, b) => a.userId.localeCompare(b.userId));
  const images = roundImages(state.round);
  const outcome = resolveRound({
    roundNumber: state.round,
    totalRounds: state.totalRounds,
    imageIds: images.map((image) => image.id),
    alive,
    ballots: new Map([...ballots].map(([userId, ballot]) => [userId, ballot.imageId])),
    // A game begun before the seed existed draws with its id, as it did then.
    drawSeed: state.drawSeed || state.gameId,
    excluded,
  });
  const now = game.now();
  const winner = outcome.end && 'winnerUserId' in outcome.end ? outcome.end.winnerUserId : '';
  const winnerName = winner ? ((await live.player(game.tournamentId, winner))?.username ?? '') : '';
  const moved = await game.advance(
    { phase: 'tallying', round: state.round },
    {
      phase: 'results',
      phaseEndsAt: now + timings.resultsMs,
      results: JSON.stringify(outcome.results),
      // Kept for the records: a replica finishing the game writes them again (see `finish`).
      [roundFactsField(state.round)]: JSON.stringify({
        startedAt: state.roundStartedAt,
        endedAt: now,
        results: outcome.results,
      }),
      roundEliminated: outcome.eliminated.length,
      ...(outcome.end
        ? {
            decidedBy: outcome.end.decidedBy,
            winner: winner
              ? JSON.stringify({ userId: winner, username: winnerName, prize: state.prize })
              : '',
            draw: outcome.end.decidedBy === 'draw' ? JSON.stringify(outcome.end.draw) : '',
          }
        : {}),
    },
    { round: state.round, userIds: outcome.eliminated },
  );
  if (!moved) return 0;
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
          results: outcome.results,
          totalVotes: outcome.totalVotes,
          winningImageIds: outcome.winningImageIds,
          eliminatedCount: outcome.eliminated.length,
          remainingCount: outcome.advanced.length,
          durationSeconds: Math.round(timings.resultsMs / 1000),
          phaseEndsAt: timestampFromDate(new Date(now + timings.resultsMs)),
          advancedUserIds: outcome.advanced,
        },
      },
      String(state.round),
      now,
    );
    metrics.roundDuration.observe((now - state.roundStartedAt) / 1000);
    game.log.info(
      {
        roundNumber: state.round,
        totalVotes: outcome.totalVotes,
        advanced: outcome.advanced.length,
        eliminated: outcome.eliminated.length,
      },
      'round resolved',
    );
    game.records.recordStart(state.round, outcome.eliminated);
    recordRound(game, state, outcome, ballots, now);
    if (disqualifiedNow.length > 0) {
      game.records.record('participantsDisqualified', () =>
        game.deps.records.participantsDisqualified(state.gameId, disqualifiedNow),
      );
    }
  });
  return 0;
}

function recordRound(
  game: StepContext,
  state: GameState,
  outcome: RoundOutcome,
  ballots: Awaited<ReturnType<LiveGames['ballots']>>,
  endedAt: number,
) {
  game.records.record('roundResolved', () =>
    game.deps.records.roundResolved(
      roundRecord(state, state.round, ballots, outcome.eliminated, {
        startedAt: state.roundStartedAt,
        endedAt,
        results: outcome.results,
      }),
    ),
  );
}
