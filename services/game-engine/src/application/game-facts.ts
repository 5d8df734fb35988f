import type { GameState, StoredAdvertisement } from '@underdog/live-game';
import type { Advertisement } from '@underdog/proto';
import { roundImages } from '@underdog/rules';
import type { AdPosition } from '../adapters/ads-catalog';
import type { LiveGames, Participant, RoundFacts } from '../adapters/live-games';

/** The stored facts and the records a game's steps write, built from the state (pure). */

export function gameStartedRecord(
  tournamentId: string,
  state: GameState,
  participants: Participant[],
  now: number,
) {
  return {
    gameId: state.gameId,
    tournament: {
      id: tournamentId,
      title: state.title,
      ...(state.prize ? { prize: state.prize } : {}),
      startAt: new Date(state.startAt),
    },
    totalRounds: state.totalRounds,
    roundTimeSeconds: state.roundTimeSeconds,
    startedAt: new Date(state.startedAt || now),
    participants: participants.map(participantRecord),
    ...(state.drawCommitment ? { drawCommitment: state.drawCommitment } : {}),
  };
}

export function adFields(ad: Advertisement, position: AdPosition, now: number) {
  const stored: StoredAdvertisement = {
    id: ad.id,
    title: ad.title,
    type: ad.type,
    content: ad.content,
    displayPosition: ad.displayPosition,
    duration: ad.duration,
  };
  return {
    phase: 'advertisement',
    phaseEndsAt: now + ad.duration * 1000,
    advertisement: JSON.stringify(stored),
    adPosition: position,
  };
}

export function roundRecord(
  state: GameState,
  round: number,
  ballots: Awaited<ReturnType<LiveGames['ballots']>>,
  eliminated: readonly string[],
  facts: RoundFacts,
) {
  const winning = new Set(facts.results.filter((r) => r.isWinner).map((r) => r.imageId));
  return {
    gameId: state.gameId,
    roundNumber: round,
    images: roundImages(round),
    timeLimit: state.roundTimeSeconds,
    startedAt: new Date(facts.startedAt),
    endedAt: new Date(facts.endedAt),
    votes: [...ballots].map(([userId, ballot]) => ({
      userId,
      username: ballot.username,
      imageId: ballot.imageId,
      votedAt: new Date(ballot.castAt),
      isOfflinePlayer: ballot.offline,
      isWinningVote: winning.has(ballot.imageId),
    })),
    eliminated: eliminated.map((userId) => ({ userId })),
    results: facts.results,
  };
}

export function participantRecord(participant: Participant) {
  return {
    userId: participant.userId,
    username: participant.username,
    isOfflinePlayer: participant.offlineChoices !== undefined,
    joinedAt: new Date(participant.joinedAt),
    ...(participant.disqualificationReason === undefined
      ? {}
      : { disqualificationReason: participant.disqualificationReason }),
    // Known when the whole game is written again at its end: the participant's document is
    // inserted eliminated, and the rounds' elimination updates find nothing left to change.
    ...(participant.eliminatedInRound > 0
      ? { eliminatedInRound: participant.eliminatedInRound }
      : {}),
  };
}
