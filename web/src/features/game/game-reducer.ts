// The live game as the client sees it: a pure reducer over the gateway's snapshot and events
// (spec §4: voting start sets voting and clears votes, voting end sets voting_ended, ad start
// sets advertisement, results start sets results, game end sets finished with the winner), and
// an offline player's pre-selected picks played as their votes. Re-exported by `state.ts`.
import type { GameEventsSubscription, LiveGameFieldsFragment } from '../../gql/operations';
import { offlinePickImageId } from '@underdog/rules';

export type LiveGameView = LiveGameFieldsFragment;
export type GameEvent = GameEventsSubscription['gameEvents'];
export type GamePhase = LiveGameView['phase'];

/**
 * An offline player's 17 pre-selected picks, by round: `picks[N - 1]` is round N's zero-based
 * option position ("0" .. "3", the `selectedImageId` of their offline choices).
 */
export type OfflinePicks = readonly (string | undefined)[];

/** The offline choices as `offlineChoices` answers them, as picks by round. */
export function offlinePicksOf(
  choices: readonly { roundNumber: number; selectedImageId: string }[],
): OfflinePicks {
  const picks: (string | undefined)[] = [];
  for (const { roundNumber, selectedImageId } of choices) picks[roundNumber - 1] = selectedImageId;
  return picks;
}

/**
 * The image the player stands on in the round: their own vote (the snapshot's, which for an
 * offline player is the pick the engine cast), else, for an offline player still in, their
 * pre-selected pick for that round; null when neither is known.
 */
export function ownPickOf(
  player: LiveGameView['player'],
  roundNumber: number,
  picks: OfflinePicks | undefined,
): string | null {
  if (!player) return null;
  if (player.voteImageId) return player.voteImageId;
  if (!player.isOfflinePlayer || roundNumber < 1) return null;
  // Out in an earlier round: the engine casts nothing for them any more.
  if (player.isEliminated && player.eliminatedInRound < roundNumber) return null;
  const pick = picks?.[roundNumber - 1];
  return pick === undefined ? null : offlinePickImageId(roundNumber, pick);
}

/** The game as the player sees it: an offline player's pre-selected pick as their vote. */
export function withOwnPick(game: LiveGameView, picks: OfflinePicks | undefined): LiveGameView {
  const player = game.player;
  if (!player?.isOfflinePlayer || player.voteImageId || game.phase === 'waiting') return game;
  const pick = ownPickOf(player, game.roundNumber, picks);
  return pick ? { ...game, player: { ...player, voteImageId: pick } } : game;
}

/**
 * Applies one event; a snapshot replaces everything (the state to start from on (re)connect).
 * `picks` are the signed-in offline player's pre-selected choices: a round they did not vote in
 * live is played with them. An event of a type this tab does not know (a newer server's) leaves
 * the state as it is (spec §7: unknown types are ignored).
 */
export function applyGameEvent(
  state: LiveGameView | undefined,
  event: GameEvent,
  picks?: OfflinePicks,
): LiveGameView | undefined {
  if (event.__typename === 'GameSnapshot') return event.game;
  if (!state) return state;
  switch (event.__typename) {
    case 'GameStarted':
      return {
        ...state,
        gameId: event.gameId,
        participantCount: event.participantCount,
        offlineParticipantCount: event.offlineParticipantCount,
        totalRounds: event.totalRounds,
        roundTimeSeconds: event.roundTimeSeconds,
        remainingCount: event.participantCount,
      };
    case 'RoundVotingStarted':
      return {
        ...state,
        phase: 'voting',
        roundNumber: event.roundNumber,
        images: event.images,
        roundTimeSeconds: event.roundTimeSeconds,
        phaseEndsAt: event.phaseEndsAt,
        remainingCount: event.remainingCount,
        totalVotes: 0,
        results: [],
        advertisement: null,
        player: state.player
          ? {
              ...state.player,
              voteImageId: ownPickOf(
                { ...state.player, voteImageId: null },
                event.roundNumber,
                picks,
              ),
            }
          : state.player,
      };
    case 'VoteTotal':
      if (event.roundNumber !== state.roundNumber) return state;
      return { ...state, totalVotes: Math.max(state.totalVotes, event.totalVotes) };
    case 'VotingEnded':
      if (event.roundNumber !== state.roundNumber) return state;
      return { ...state, phase: 'voting_ended', totalVotes: event.totalVotes, phaseEndsAt: null };
    case 'RoundResults': {
      const player = state.player;
      const pick = ownPickOf(player, event.roundNumber, picks);
      // An offline player whose pick this tab does not know yet is left as the server last said
      // (the next snapshot tells): never shown out while their pick may have advanced.
      const unknownOfflinePick = Boolean(player?.isOfflinePlayer) && pick === null;
      // A disqualified player goes out at the end of the round, whatever they voted (issue 28).
      const lost =
        player?.isParticipant &&
        !player.isEliminated &&
        (Boolean(player.disqualificationReason) ||
          (!unknownOfflinePick && !(pick && event.winningImageIds.includes(pick))));
      return {
        ...state,
        phase: 'results',
        roundNumber: event.roundNumber,
        results: event.results,
        totalVotes: event.totalVotes,
        remainingCount: event.remainingCount,
        phaseEndsAt: event.phaseEndsAt,
        player: !player
          ? player
          : lost
            ? {
                ...player,
                voteImageId: pick,
                isEliminated: true,
                eliminatedInRound: event.roundNumber,
              }
            : { ...player, voteImageId: pick },
      };
    }
    case 'AdvertisementStarted':
      return {
        ...state,
        phase: 'advertisement',
        advertisement: event.advertisement,
        phaseEndsAt: event.phaseEndsAt,
      };
    case 'RoundCompleted':
      return { ...state, remainingCount: event.remainingCount };
    case 'GameEnded':
      return { ...state, phase: 'finished', winner: event.winner, phaseEndsAt: null };
    case 'ParticipantDisqualified': {
      // Only the disqualified player hears it: they are out, with the administrator's reason.
      const player = state.player;
      if (!player) return state;
      return {
        ...state,
        player: {
          ...player,
          isEliminated: true,
          eliminatedInRound: player.isEliminated ? player.eliminatedInRound : event.roundNumber,
          disqualificationReason: event.reason,
        },
      };
    }
    default:
      return state;
  }
}
