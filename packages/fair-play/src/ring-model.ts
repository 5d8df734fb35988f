// The ring detector's model: what it reads (participants, rounds, options) and what it reports
// (clusters and their evidence). The detection itself is rings.ts.

/** What is known about one participant of a tournament (see `RingDetector` to build it from signals). */
export interface ParticipantSignals {
  userId: string;
  /** Registration time, ms since the epoch. */
  registeredAt?: number;
  /** Every device id seen for this account (registration, logins, join, votes). */
  deviceIds: readonly string[];
  /** Every `addressPrefixHash` seen for this account. */
  addressPrefixes: readonly string[];
  /** Every `userAgentHash` seen for this account. */
  userAgents?: readonly string[];
}

export interface RoundVote {
  userId: string;
  imageId: string;
  /** The gateway's `castAt`, ms since the epoch. */
  castAt: number;
}

export interface RoundVotes {
  roundNumber: number;
  /** The round's images (a covering is measured against all of them). */
  imageIds: readonly string[];
  /** The counted votes of the round, one per voter. */
  votes: readonly RoundVote[];
}

export interface RingDetectionOptions {
  /** A cluster is flagged at this score or above. Default 0.5 (surprise ≥ 6). */
  flagScore: number;
  /** The surprise (−log10 p) that maps to score 0.5. Default 6. */
  halfScoreSurprise: number;
  /** A registration burst counts at most this much surprise (families sign up together). Default 2. */
  maxBurstSurprise: number;
  /** One user agent for many of them counts at most this much surprise. Default 2. */
  maxUserAgentSurprise: number;
  /** Accounts a household plausibly makes together on one browser build. Default 5. */
  householdSize: number;
  /** Sync within this many ms is treated as this tight (clock resolution, network). Default 250. */
  minVoteSpanMs: number;
  /** Everyone's votes within ± this many ms give the local vote rate. Default 3000. */
  voteDensityWindowMs: number;
  /** Registrations within ± this many ms give the local registration rate. Default 6 h. */
  registrationDensityWindowMs: number;
  /** Largest subset searched for a burst or a sync. Default 32. */
  maxSubsetSize: number;
  /** A member is flagged when the evidence naming them holds at least this share. Default 0.5. */
  memberShare: number;
}

export const defaultRingDetectionOptions: RingDetectionOptions = {
  flagScore: 0.5,
  halfScoreSurprise: 6,
  maxBurstSurprise: 2,
  maxUserAgentSurprise: 2,
  householdSize: 5,
  minVoteSpanMs: 250,
  voteDensityWindowMs: 3_000,
  registrationDensityWindowMs: 6 * 3_600_000,
  maxSubsetSize: 32,
  memberShare: 0.5,
};

export interface RingDetectionInput {
  participants: readonly ParticipantSignals[];
  rounds: readonly RoundVotes[];
  options?: Partial<RingDetectionOptions>;
}

export type EvidenceKind =
  | 'sharedDevice'
  | 'sharedAddressPrefix'
  | 'sharedUserAgent'
  | 'registrationBurst'
  | 'simultaneousVotes'
  | 'coveringVotes';

export interface Evidence {
  kind: EvidenceKind;
  /** For a person: "3 accounts share device d1f0a2…". */
  text: string;
  /** Sorted user ids the evidence names. */
  members: string[];
  /** −log10 of its p-value under independent play; 0 for links (they only form the cluster). */
  surprise: number;
  roundNumber?: number;
}

export interface RingCluster {
  /** Sorted user ids linked by shared devices or address prefixes. */
  members: string[];
  /** The members the evidence points at (all of `members` but, e.g., an honest flatmate). Sorted. */
  flaggedMembers: string[];
  /** In [0, 1]: S / (S + halfScoreSurprise), S = identitySurprise + playSurprise. */
  score: number;
  /** −log10 p of who they are: a registration burst, one browser build (each capped). */
  identitySurprise: number;
  /** −log10 p of how they play: near-simultaneous and covering votes, all rounds combined (Fisher). */
  playSurprise: number;
  flagged: boolean;
  /** Links first, then behaviour by strength. */
  evidence: Evidence[];
}

export interface RingReport {
  /** Every linked group of two or more, highest score first. */
  clusters: RingCluster[];
  /** Sorted user ids of the flagged members of flagged clusters. */
  flagged: string[];
}
