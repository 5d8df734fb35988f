import {
  coveringP,
  fisherCombine,
  logChoose,
  surprise,
  tightestSubset,
  type TightSubset,
} from './statistics';

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

/**
 * Ring detection for one tournament: deterministic, pure, and cheap enough to run after every
 * round of a live game (README, "Cost"). docs/fairness.md, "How rings are detected", explains the
 * model, the thresholds and what it cannot see.
 */
export function detectRings(input: RingDetectionInput): RingReport {
  const options = { ...defaultRingDetectionOptions, ...input.options };
  const participants = mergeByUser(input.participants);
  const groups = linkedGroups(participants);
  const userAgents = new Map<string, number>();
  for (const participant of participants) {
    for (const agent of new Set(participant.userAgents ?? []))
      userAgents.set(agent, (userAgents.get(agent) ?? 0) + 1);
  }
  const population: Population = {
    registrations: participants
      .map((participant) => participant.registeredAt)
      .filter((at): at is number => at !== undefined)
      .sort(numeric),
    userAgents,
    size: participants.length,
  };
  const rounds = [...input.rounds]
    .sort((a, b) => a.roundNumber - b.roundNumber)
    .map((round) => prepareRound(round));
  const clusters = groups
    .map((group) => scoreGroup(group, population, rounds, options))
    .sort((a, b) => b.score - a.score || a.members[0]!.localeCompare(b.members[0]!));
  const flagged = clusters.flatMap((cluster) => (cluster.flagged ? cluster.flaggedMembers : []));
  return { clusters, flagged: [...new Set(flagged)].sort() };
}

interface LinkedGroup {
  members: ParticipantSignals[];
  links: Evidence[];
}

function linkedGroups(participants: readonly ParticipantSignals[]): LinkedGroup[] {
  const parent = participants.map((_, index) => index);
  const find = (index: number): number => {
    let root = index;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[index] !== root) {
      const next = parent[index]!;
      parent[index] = root;
      index = next;
    }
    return root;
  };
  const sharers = new Map<string, { kind: EvidenceKind; label: string; indexes: number[] }>();
  const share = (kind: EvidenceKind, value: string, index: number): void => {
    const key = `${kind}\u0000${value}`;
    const entry = sharers.get(key) ?? { kind, label: value, indexes: [] };
    if (entry.indexes[entry.indexes.length - 1] !== index) entry.indexes.push(index);
    sharers.set(key, entry);
  };
  participants.forEach((participant, index) => {
    for (const device of new Set(participant.deviceIds)) share('sharedDevice', device, index);
    for (const prefix of new Set(participant.addressPrefixes))
      share('sharedAddressPrefix', prefix, index);
  });
  for (const entry of sharers.values()) {
    if (entry.indexes.length < 2) continue;
    const [first, ...rest] = entry.indexes;
    for (const index of rest) parent[find(index)] = find(first!);
  }
  const byRoot = new Map<number, LinkedGroup>();
  participants.forEach((participant, index) => {
    const root = find(index);
    const group = byRoot.get(root) ?? { members: [], links: [] };
    group.members.push(participant);
    byRoot.set(root, group);
  });
  for (const entry of [...sharers.values()].sort((a, b) => a.label.localeCompare(b.label))) {
    if (entry.indexes.length < 2) continue;
    const group = byRoot.get(find(entry.indexes[0]!))!;
    const members = entry.indexes.map((index) => participants[index]!.userId).sort();
    group.links.push(link(entry.kind, entry.label, members));
  }
  return [...byRoot.values()].filter((group) => group.members.length >= 2);
}

function link(kind: EvidenceKind, label: string, members: string[]): Evidence {
  const what = kind === 'sharedDevice' ? 'device' : 'address prefix';
  return {
    kind,
    text: `${members.length} accounts share ${what} ${shortLabel(label)}`,
    members,
    surprise: 0,
  };
}

interface PreparedRound {
  roundNumber: number;
  imageIds: readonly string[];
  votes: Map<string, RoundVote>;
  /** Everyone's cast times, sorted. */
  castTimes: number[];
  counts: Map<string, number>;
}

function prepareRound(round: RoundVotes): PreparedRound {
  const votes = new Map<string, RoundVote>();
  for (const vote of round.votes) if (!votes.has(vote.userId)) votes.set(vote.userId, vote);
  const counts = new Map<string, number>(round.imageIds.map((id) => [id, 0]));
  for (const vote of votes.values()) counts.set(vote.imageId, (counts.get(vote.imageId) ?? 0) + 1);
  return {
    roundNumber: round.roundNumber,
    imageIds: [...counts.keys()],
    votes,
    castTimes: [...votes.values()].map((vote) => vote.castAt).sort(numeric),
    counts,
  };
}

interface Population {
  /** Everyone's registration times, sorted. */
  registrations: number[];
  /** User agent → how many participants were seen with it. */
  userAgents: Map<string, number>;
  size: number;
}

function scoreGroup(
  group: LinkedGroup,
  population: Population,
  rounds: readonly PreparedRound[],
  options: RingDetectionOptions,
): RingCluster {
  const members = group.members.map((member) => member.userId).sort();
  const identity: Evidence[] = [];
  const play: Evidence[] = [];

  const registered = group.members.filter((member) => member.registeredAt !== undefined);
  const burst = tightestSubset(
    registered.map((member) => member.registeredAt!),
    population.registrations,
    {
      densityWindow: options.registrationDensityWindowMs,
      minSpan: 60_000,
      maxSize: options.maxSubsetSize,
    },
  );
  const burstMembers =
    burst !== undefined && burst.indexes.length >= 3 && surprise(burst.p) >= 1
      ? burst.indexes.map((index) => registered[index]!)
      : undefined;
  if (burst !== undefined && burstMembers !== undefined) {
    identity.push({
      kind: 'registrationBurst',
      text: `${burstMembers.length} accounts registered within ${duration(burst.span)}`,
      members: burstMembers.map((member) => member.userId).sort(),
      surprise: Math.min(surprise(burst.p), options.maxBurstSurprise),
    });
  }
  // Accounts made together in one browser: for each user agent three or more of the group share,
  // the tightest burst of registrations among them. A household shares a browser build now and
  // then, a class hardly ever, one person making accounts in one browser always — so beyond a
  // household's size each further account may count one more unit of surprise.
  let core = group.members;
  const made = madeTogether(group.members, population, options);
  if (made !== undefined) {
    const beyondHousehold = Math.max(0, made.members.length - options.householdSize);
    identity.push({
      kind: 'sharedUserAgent',
      text: `${made.members.length} accounts registered within ${duration(made.span)} on one browser build (user agent ${shortLabel(made.userAgent)})`,
      members: made.members.map((member) => member.userId).sort(),
      surprise: Math.min(made.surprise, options.maxUserAgentSurprise + beyondHousehold),
    });
    core = made.members;
  }
  const players = core.map((member) => member.userId).sort();

  const playPValues: number[] = [];
  let roundsPlayed = 0;
  let roundsCovered = 0;
  for (const round of rounds) {
    const votes = players
      .map((member) => round.votes.get(member))
      .filter((vote): vote is RoundVote => vote !== undefined);
    if (votes.length < 2) continue;
    roundsPlayed++;
    const sync = simultaneous(votes, round, options);
    if (sync !== undefined) {
      playPValues.push(sync.p);
      if (surprise(sync.p) >= 1) {
        play.push({
          kind: 'simultaneousVotes',
          text: `${sync.indexes.length} votes cast within ${duration(sync.span)} in round ${round.roundNumber}`,
          members: sync.indexes.map((index) => votes[index]!.userId).sort(),
          surprise: surprise(sync.p),
          roundNumber: round.roundNumber,
        });
      }
    }
    const groupCounts = round.imageIds.map(
      (id) => votes.filter((vote) => vote.imageId === id).length,
    );
    const othersCounts = round.imageIds.map((id, i) => round.counts.get(id)! - groupCounts[i]!);
    const distinct = groupCounts.filter((count) => count > 0).length;
    if (distinct >= Math.min(votes.length, round.imageIds.length, 3)) roundsCovered++;
    const p = coveringP(groupCounts, othersCounts);
    playPValues.push(p);
    if (surprise(p) >= 1) {
      play.push({
        kind: 'coveringVotes',
        text: `${votes.length} votes split over ${distinct} of ${round.imageIds.length} images (${groupCounts.join('/')}) in round ${round.roundNumber}`,
        members: votes.map((vote) => vote.userId).sort(),
        surprise: surprise(p),
        roundNumber: round.roundNumber,
      });
    }
  }

  const identitySurprise = identity.reduce((sum, item) => sum + item.surprise, 0);
  const playSurprise = surprise(fisherCombine(playPValues));
  const combined = identitySurprise + playSurprise;
  const score = combined / (combined + options.halfScoreSurprise);
  const flagged = score >= options.flagScore;
  const behaviour = [...identity, ...play];
  const total = behaviour.reduce((sum, item) => sum + item.surprise, 0);
  const flaggedMembers = flagged
    ? members.filter((member) => {
        const named = behaviour
          .filter((item) => item.members.includes(member))
          .reduce((sum, item) => sum + item.surprise, 0);
        return total > 0 && named / total >= options.memberShare;
      })
    : [];
  behaviour.sort((a, b) => b.surprise - a.surprise || a.text.localeCompare(b.text));
  const summary: Evidence[] =
    roundsPlayed > 0
      ? [
          {
            kind: 'coveringVotes',
            text: `split over 3 or more images (or one image each) in ${roundsCovered} of ${roundsPlayed} rounds played by two or more of them`,
            members: players,
            surprise: 0,
          },
        ]
      : [];
  return {
    members,
    flaggedMembers,
    score: round3(score),
    flagged,
    identitySurprise: round3(identitySurprise),
    playSurprise: round3(playSurprise),
    evidence: [...group.links, ...behaviour, ...summary],
  };
}

/**
 * The strongest "made together" set: for each user agent three or more members were seen with,
 * the tightest registration burst among those members (≥ 3 accounts); then, of everyone in the
 * group registered in that same span, how unlikely it is that so many share one user agent:
 * ≤ C(b, j) · Σᵤ fᵤʲ, b the accounts registered in the span, j those with the user agent, fᵤ the
 * share of the tournament's participants seen with u. A family or a class signing up together is
 * a burst too, but with the mix of phones and browsers people have.
 */
function madeTogether(
  members: readonly ParticipantSignals[],
  population: Population,
  options: RingDetectionOptions,
):
  { userAgent: string; members: ParticipantSignals[]; span: number; surprise: number } | undefined {
  const byAgent = new Map<string, ParticipantSignals[]>();
  for (const member of members) {
    if (member.registeredAt === undefined) continue;
    for (const agent of new Set(member.userAgents ?? [])) {
      const sharing = byAgent.get(agent);
      if (sharing === undefined) byAgent.set(agent, [member]);
      else sharing.push(member);
    }
  }
  let best:
    | { userAgent: string; members: ParticipantSignals[]; span: number; surprise: number }
    | undefined;
  for (const [userAgent, sharing] of [...byAgent].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (sharing.length < 3) continue;
    const burst = tightestSubset(
      sharing.map((member) => member.registeredAt!),
      population.registrations,
      {
        densityWindow: options.registrationDensityWindowMs,
        minSpan: 60_000,
        maxSize: options.maxSubsetSize,
      },
    );
    if (burst === undefined || burst.indexes.length < 3 || surprise(burst.p) < 1) continue;
    const together = burst.indexes.map((index) => sharing[index]!);
    const from = Math.min(...together.map((member) => member.registeredAt!));
    const to = Math.max(...together.map((member) => member.registeredAt!));
    const inSpan = members.filter(
      (member) =>
        member.registeredAt !== undefined &&
        member.registeredAt >= from &&
        member.registeredAt <= to,
    ).length;
    const j = together.length;
    let chance = 0;
    for (const count of population.userAgents.values()) chance += (count / population.size) ** j;
    const agentSurprise = surprise(Math.min(1, Math.exp(logChoose(inSpan, j)) * chance));
    if (agentSurprise >= 1 && (best === undefined || agentSurprise > best.surprise)) {
      best = { userAgent, members: together, span: burst.span, surprise: agentSurprise };
    }
  }
  return best;
}

function simultaneous(
  votes: readonly RoundVote[],
  round: PreparedRound,
  options: RingDetectionOptions,
): TightSubset | undefined {
  const times = votes.map((vote) => vote.castAt);
  return tightestSubset(times, round.castTimes, {
    densityWindow: options.voteDensityWindowMs,
    minSpan: options.minVoteSpanMs,
    maxSize: options.maxSubsetSize,
  });
}

function shortLabel(label: string): string {
  const bare = label.includes(':') ? label.slice(label.indexOf(':') + 1) : label;
  return bare.length > 10 ? `${bare.slice(0, 8)}…` : bare;
}

function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function numeric(a: number, b: number): number {
  return a - b;
}

/** One entry per user (a caller may list a user twice): their signals together, the first registration. */
function mergeByUser(participants: readonly ParticipantSignals[]): ParticipantSignals[] {
  const byUser = new Map<string, ParticipantSignals>();
  for (const participant of participants) {
    const seen = byUser.get(participant.userId);
    if (seen === undefined) {
      byUser.set(participant.userId, participant);
      continue;
    }
    const registrations = [seen.registeredAt, participant.registeredAt].filter(
      (at): at is number => at !== undefined,
    );
    byUser.set(participant.userId, {
      userId: participant.userId,
      ...(registrations.length > 0 ? { registeredAt: Math.min(...registrations) } : {}),
      deviceIds: [...new Set([...seen.deviceIds, ...participant.deviceIds])].sort(),
      addressPrefixes: [
        ...new Set([...seen.addressPrefixes, ...participant.addressPrefixes]),
      ].sort(),
      userAgents: [
        ...new Set([...(seen.userAgents ?? []), ...(participant.userAgents ?? [])]),
      ].sort(),
    });
  }
  return [...byUser.values()].sort(byUserId);
}

function byUserId(a: ParticipantSignals, b: ParticipantSignals): number {
  return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0;
}
