import type { GameState } from '@underdog/live-game';
import { timestampFromDate } from '@underdog/proto';
import { offlinePickImageId, roundImages } from '@underdog/rules';
import type { Participant } from '../../adapters/live-games';
import type { StepContext } from './context';

/** The stored fields of round `round`'s voting, opened at `now`. */
export function roundFields(state: GameState, round: number, now: number) {
  const endsAt = now + state.roundTimeSeconds * 1000;
  return {
    phase: 'voting',
    round,
    roundStartedAt: now,
    votingEndsAt: endsAt,
    phaseEndsAt: endsAt,
    totalVotes: 0,
    votesEndOffset: '',
    advertisement: '',
    adPosition: '',
  };
}

/**
 * How much later than its step a round may be announced before its deadline moves with the
 * announcement. The step stores the deadline from the moment it starts; the writes, reads and
 * events between it and the announcement (the game's start, the offline choices) take
 * milliseconds, but a slow store or bus made them take seconds (5.5 s on a loaded machine, issue
 * 38), and the players then heard of a round that closed that much sooner.
 */
export const ROUND_ANNOUNCED_LATE_MS = 250;

/** After the step to voting: offline choices cast, then the round announced. */
export async function openRound(
  game: StepContext,
  state: GameState,
  round: number,
  now: number,
): Promise<void> {
  const stepped = openedAt(state, round, now);
  const offlineRemaining = await castOfflineChoices(game, stepped);
  const opened = await onTime(game, stepped);
  if (opened) await announceRound(game, opened, offlineRemaining);
}

/**
 * `round_voting_started` for the round `opened` stands in, dated when it opened (the event id is
 * the round's: a repeat is dropped downstream).
 */
export async function announceRound(
  game: StepContext,
  opened: GameState,
  offlineRemaining: number,
): Promise<void> {
  const round = opened.round;
  const remaining = await game.deps.live.aliveCount(game.tournamentId);
  await game.emit(
    opened,
    {
      case: 'roundVotingStarted',
      value: {
        roundNumber: round,
        images: roundImages(round),
        roundTimeSeconds: opened.roundTimeSeconds,
        phaseEndsAt: timestampFromDate(new Date(opened.votingEndsAt)),
        remainingCount: remaining,
        offlineRemainingCount: offlineRemaining,
      },
    },
    String(round),
    opened.roundStartedAt,
  );
  game.remember({ lastTotalSent: -1, announcedRound: round });
  game.log.info({ roundNumber: round, remaining }, 'round voting started');
}

/** The game as round `round`'s voting, opened at `at`. */
function openedAt(state: GameState, round: number, at: number): GameState {
  return {
    ...state,
    phase: 'voting',
    round,
    roundStartedAt: at,
    votingEndsAt: at + state.roundTimeSeconds * 1000,
  };
}

/**
 * The round as it is announced: as stepped, or — announced more than `ROUND_ANNOUNCED_LATE_MS`
 * after its step — with its start and deadline moved to now (fenced), so the players get the
 * whole round; the votes' admission and their application read the moved deadline. Undefined
 * when the game has moved on meanwhile (nothing to announce).
 */
async function onTime(game: StepContext, stepped: GameState): Promise<GameState | undefined> {
  const at = game.now();
  const lateMs = at - stepped.roundStartedAt;
  if (lateMs <= ROUND_ANNOUNCED_LATE_MS) return stepped;
  const opened = openedAt(stepped, stepped.round, at);
  const moved = await game.advance(
    { phase: 'voting', round: stepped.round },
    {
      roundStartedAt: opened.roundStartedAt,
      votingEndsAt: opened.votingEndsAt,
      phaseEndsAt: opened.votingEndsAt,
    },
  );
  if (!moved) return undefined;
  game.log.warn(
    { roundNumber: stepped.round, lateMs, votingEndsAt: opened.votingEndsAt },
    'round announced late; its deadline moved with the announcement',
  );
  return opened;
}

/**
 * Offline players' pre-selected choices, cast at the round's start (idempotent by vote id); the
 * answer is how many offline players are still in.
 */
export async function castOfflineChoices(game: StepContext, state: GameState): Promise<number> {
  const { live, metrics } = game.deps;
  const [choices, aliveList] = await Promise.all([
    live.offlineChoices(game.tournamentId),
    live.alive(game.tournamentId),
  ]);
  const alive = new Set(aliveList);
  const voters = [...choices].filter(([userId]) => alive.has(userId));
  const participants =
    voters.length > 0 ? await live.participants(game.tournamentId) : ([] as Participant[]);
  const names = new Map(participants.map((p) => [p.userId, p.username]));
  for (let i = 0; i < voters.length; i += 100) {
    const replies = await Promise.all(
      voters.slice(i, i + 100).map(([userId, picks]) =>
        live.applyVote(
          {
            tournamentId: game.tournamentId,
            gameId: state.gameId,
            voteId: `offline:${state.gameId}:${state.round}:${userId}`,
            userId,
            username: names.get(userId) ?? '',
            roundNumber: state.round,
            imageId: offlinePickImageId(state.round, picks[state.round - 1]),
            castAt: state.roundStartedAt,
            offline: true,
          },
          undefined,
          state.voteSlots,
        ),
      ),
    );
    metrics.votesCounted.inc(replies.filter((reply) => reply === 'COUNTED').length);
  }
  game.remember({ offlineCastRound: state.round });
  return voters.length;
}
