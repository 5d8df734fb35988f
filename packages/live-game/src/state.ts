import { VOTE_SLOTS_FIELD, voteSlotsFrom } from './keys';

/**
 * The game's phase as stored. `tallying` is internal (the votes are closed and being counted);
 * clients see it as `voting_ended`.
 */
export type StoredPhase =
  'waiting' | 'voting' | 'voting_ended' | 'tallying' | 'results' | 'advertisement' | 'finished';

export type TournamentStatusName = 'upcoming' | 'live' | 'finished';

export interface StoredAdvertisement {
  id: string;
  title: string;
  type: string;
  content: string;
  displayPosition: string;
  duration: number;
}

export interface StoredResult {
  imageId: string;
  votes: number;
  percentage: number;
  isWinner: boolean;
}

export interface StoredWinner {
  userId: string;
  username: string;
  prize?: string | undefined;
}

export interface StoredDraw {
  seed: string;
  candidateUserIds: string[];
  winnerUserId: string;
}

/** A ballot as the engine applied it (the value in `ballots(round)`). */
export interface StoredBallot {
  imageId: string;
  /** The gateway's stamp, ms since the epoch. */
  castAt: number;
  voteId: string;
  username: string;
  offline: boolean;
}

export interface StoredPlayer {
  username: string;
  /** ms since the epoch */
  joinedAt: number;
}

/** The state hash, parsed. Absent numbers are 0, absent strings ''. */
export interface GameState {
  tournamentStatus: TournamentStatusName;
  title: string;
  prize: string;
  /** ms since the epoch */
  startAt: number;
  roundTimeSeconds: number;
  gameId: string;
  phase: StoredPhase;
  round: number;
  totalRounds: number;
  /** ms since the epoch; 0 when the phase has no deadline */
  phaseEndsAt: number;
  votingEndsAt: number;
  roundStartedAt: number;
  startedAt: number;
  fence: number;
  participantCount: number;
  offlineCount: number;
  totalVotes: number;
  advertisement: StoredAdvertisement | undefined;
  adPosition: string;
  results: StoredResult[];
  winner: StoredWinner | undefined;
  /** "last_standing", "draw" or "no_winner" once the game's end is decided; '' before. */
  decidedBy: string;
  /** The seeded draw among several survivors of the last round, when there was one. */
  draw: StoredDraw | undefined;
  /**
   * The seed of the game's final draw (32 random bytes, hex), made as the game begins; its
   * SHA-256 is published in `GameStarted`, the seed itself only in `GameEnded`. Never show it
   * to a client before the game's end. '' for a game begun before it existed.
   */
  drawSeed: string;
  /**
   * SHA-256 of `drawSeed` (hex), stored with it as the game begins and public from then on (the
   * live snapshot, the records): the seed is checked against it at the reveal (issue 37).
   */
  drawCommitment: string;
  /** The prize's order fixed at the reveal (`prizeOrder` of @underdog/fair-play); [] before. */
  drawOrder: string[];
  /** How many the last resolved round eliminated. */
  roundEliminated: number;
  /**
   * The `game.votes` end offsets captured when the round's grace ended, `partition:offset`, one
   * per partition the game's vote slots use, comma-separated (`parseVotesEnd`); '' until then,
   * and `VOTES_CLOSING` from just before the capture.
   */
  votesEndOffset: string;
  /**
   * The game's vote slots K (docs/adr/0012): a round's per-player vote keys spread over K hash
   * tags and K keys of `game.votes`. Set when the game begins; 1 before, and for a game begun
   * before slots existed.
   */
  voteSlots: number;
}

/**
 * `votesEndOffset` while the engine captures the partition's end: from then on the gateway no
 * longer acknowledges a vote it has not seen counted (`settleVote`, docs/adr/0009).
 */
export const VOTES_CLOSING = 'closing';

function json<T>(text: string | undefined): T | undefined {
  return text ? (JSON.parse(text) as T) : undefined;
}

export function parseGameState(hash: Record<string, string>): GameState | undefined {
  if (!hash.tournamentStatus) return undefined;
  const num = (field: string) => Number(hash[field] ?? 0) || 0;
  return {
    tournamentStatus: hash.tournamentStatus as TournamentStatusName,
    title: hash.title ?? '',
    prize: hash.prize ?? '',
    startAt: num('startAt'),
    roundTimeSeconds: num('roundTimeSeconds'),
    gameId: hash.gameId ?? '',
    phase: (hash.phase ?? 'waiting') as StoredPhase,
    round: num('round'),
    totalRounds: num('totalRounds'),
    phaseEndsAt: num('phaseEndsAt'),
    votingEndsAt: num('votingEndsAt'),
    roundStartedAt: num('roundStartedAt'),
    startedAt: num('startedAt'),
    fence: num('fence'),
    participantCount: num('participantCount'),
    offlineCount: num('offlineCount'),
    totalVotes: num('totalVotes'),
    advertisement: json<StoredAdvertisement>(hash.advertisement),
    adPosition: hash.adPosition ?? '',
    results: json<StoredResult[]>(hash.results) ?? [],
    winner: json<StoredWinner>(hash.winner),
    decidedBy: hash.decidedBy ?? '',
    draw: json<StoredDraw>(hash.draw),
    drawSeed: hash.drawSeed ?? '',
    drawCommitment: hash.drawCommitment ?? '',
    drawOrder: json<string[]>(hash.drawOrder) ?? [],
    roundEliminated: num('roundEliminated'),
    votesEndOffset: hash.votesEndOffset ?? '',
    voteSlots: voteSlotsFrom(hash[VOTE_SLOTS_FIELD]),
  };
}

/** One partition's captured end in `votesEndOffset`. */
export interface VotesEnd {
  partition: number;
  end: bigint;
}

/** `votesEndOffset` as written: `p:o` per partition, comma-separated. */
export function formatVotesEnd(ends: readonly VotesEnd[]): string {
  return ends.map(({ partition, end }) => `${partition}:${end}`).join(',');
}

/** The captured ends of a `votesEndOffset` holding some (not '' nor `VOTES_CLOSING`). */
export function parseVotesEnd(field: string): VotesEnd[] {
  return field.split(',').map((part) => {
    const [partition = '0', end = '0'] = part.split(':');
    return { partition: Number(partition), end: BigInt(end) };
  });
}
