import type { LiveGameSnapshot, PlayerSnapshot, StoredPhase } from '@underdog/live-game';
import { TOTAL_ROUNDS, countsShownIn, roundImages } from '@underdog/rules';
import {
  AdvertisementSchema,
  GamePhase,
  LiveGameSchema,
  PlayerViewSchema,
  create,
  timestampFromDate,
  type LiveGame,
  type PlayerView,
} from '@underdog/proto';

const phases: Record<StoredPhase, GamePhase> = {
  waiting: GamePhase.WAITING,
  voting: GamePhase.VOTING,
  voting_ended: GamePhase.VOTING_ENDED,
  tallying: GamePhase.VOTING_ENDED,
  results: GamePhase.RESULTS,
  advertisement: GamePhase.ADVERTISEMENT,
  finished: GamePhase.FINISHED,
};

export function toPlayerView(player: PlayerSnapshot): PlayerView {
  return create(PlayerViewSchema, {
    isParticipant: player.isParticipant,
    isEliminated: player.isEliminated,
    eliminatedInRound: player.eliminatedInRound,
    isOfflinePlayer: player.isOfflinePlayer,
    ...(player.voteImageId === undefined ? {} : { voteImageId: player.voteImageId }),
    ...(player.disqualificationReason === undefined
      ? {}
      : { disqualificationReason: player.disqualificationReason }),
  });
}

export function toLiveGame(tournamentId: string, snapshot: LiveGameSnapshot, now: Date): LiveGame {
  const state = snapshot.state!;
  const phase = state.gameId ? phases[state.phase] : GamePhase.WAITING;
  // Per-image counts only once the round is resolved (@underdog/rules).
  const showsResults = state.gameId !== '' && countsShownIn(state.phase);
  const hasDeadline =
    state.gameId !== '' && phase !== GamePhase.WAITING && phase !== GamePhase.FINISHED;
  const ad = state.advertisement;
  return create(LiveGameSchema, {
    tournamentId,
    gameId: state.gameId,
    phase,
    roundNumber: state.round,
    totalRounds: state.totalRounds || TOTAL_ROUNDS,
    roundTimeSeconds: state.roundTimeSeconds,
    images: state.round > 0 ? roundImages(state.round) : [],
    ...(hasDeadline && state.phaseEndsAt > 0
      ? { phaseEndsAt: timestampFromDate(new Date(state.phaseEndsAt)) }
      : {}),
    serverTime: timestampFromDate(now),
    totalVotes: state.round > 0 ? state.totalVotes : 0,
    participantCount: state.participantCount,
    offlineParticipantCount: state.offlineCount,
    remainingCount: state.gameId ? snapshot.remainingCount : state.participantCount,
    results: showsResults ? state.results : [],
    ...(phase === GamePhase.ADVERTISEMENT && ad
      ? {
          advertisement: create(AdvertisementSchema, {
            id: ad.id,
            title: ad.title,
            type: ad.type,
            content: ad.content,
            displayPosition: ad.displayPosition,
            isActive: true,
            duration: ad.duration,
          }),
        }
      : {}),
    ...(phase === GamePhase.FINISHED && state.winner
      ? {
          winner: {
            userId: state.winner.userId,
            username: state.winner.username,
            displayName: state.winner.username,
            ...(state.prize ? { prize: state.prize } : {}),
          },
        }
      : {}),
    ...(snapshot.player ? { player: toPlayerView(snapshot.player) } : {}),
    // Public from the game's start (issue 37); the seed itself never before the end.
    drawCommitment: state.gameId ? state.drawCommitment : '',
  });
}
