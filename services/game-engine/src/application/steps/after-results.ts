import type { GameState } from '@underdog/live-game';
import { timestampFromDate, type Advertisement } from '@underdog/proto';
import type { AdPosition } from '../../adapters/ads-catalog';
import { adFields } from '../game-facts';
import type { Step, StepContext } from './context';
import { openRound, roundFields } from './open-round';

/** results → an advertisement, the next round or the end; the round completed, announced. */
export async function afterResults(
  game: StepContext,
  state: GameState,
  ended: boolean,
  now: number,
): Promise<Step> {
  const position: AdPosition = ended ? 'after_game' : 'between_rounds';
  const ad = game.deps.ads.pick(position);
  const next = ad
    ? adFields(ad, position, now)
    : ended
      ? { phase: 'finished', phaseEndsAt: 0 }
      : roundFields(state, state.round + 1, now);
  const moved = await game.advance({ phase: 'results', round: state.round }, next);
  if (!moved) return 0;
  await game.announce(
    ad
      ? { phase: 'advertisement', round: state.round }
      : ended
        ? { phase: 'finished', round: state.round }
        : { phase: 'voting', round: state.round + 1 },
    async () => {
      const remaining = await game.deps.live.aliveCount(game.tournamentId);
      await game.emit(
        state,
        {
          case: 'roundCompleted',
          value: {
            roundNumber: state.round,
            eliminatedCount: state.roundEliminated,
            remainingCount: remaining,
          },
        },
        String(state.round),
        now,
      );
      if (ad) await emitAdvertisement(game, state, ad, position, state.round, now);
      else if (!ended) await openRound(game, state, state.round + 1, now);
    },
  );
  return 0;
}

/** advertisement → the next round, or the end after the after-game advertisement. */
export async function afterAdvertisement(
  game: StepContext,
  state: GameState,
  finishing: boolean,
  now: number,
): Promise<Step> {
  if (finishing) {
    await game.advance(
      { phase: 'advertisement', round: state.round },
      { phase: 'finished', phaseEndsAt: 0 },
    );
    return 0;
  }
  const round = state.round + 1;
  const moved = await game.advance(
    { phase: 'advertisement', round: state.round },
    roundFields(state, round, now),
  );
  if (moved) {
    await game.announce({ phase: 'voting', round }, () => openRound(game, state, round, now));
  }
  return 0;
}

/** An advertisement's start, announced. */
export async function emitAdvertisement(
  game: StepContext,
  state: GameState,
  ad: Advertisement,
  position: AdPosition,
  afterRound: number,
  now: number,
): Promise<void> {
  await game.emit(
    state,
    {
      case: 'advertisementStarted',
      value: {
        position,
        advertisement: ad,
        durationSeconds: ad.duration,
        phaseEndsAt: timestampFromDate(new Date(now + ad.duration * 1000)),
        afterRoundNumber: afterRound,
      },
    },
    `${position}:${afterRound}`,
    now,
  );
}
