import { identityEvidence, type Population } from './ring-identity';
import { linkedGroups, mergeByUser, type LinkedGroup } from './ring-links';
import {
  defaultRingDetectionOptions,
  type Evidence,
  type RingCluster,
  type RingDetectionInput,
  type RingDetectionOptions,
  type RingReport,
} from './ring-model';
import { playEvidence, prepareRound, type PreparedRound } from './ring-play';
import { numeric, round3 } from './ring-text';
import { fisherCombine, surprise } from './statistics';

// The public model (inputs, options, report) lives in ring-model.ts; the steps in ring-links.ts
// (linked groups), ring-identity.ts and ring-play.ts (the evidence), ring-text.ts (wording).
export * from './ring-model';

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

function scoreGroup(
  group: LinkedGroup,
  population: Population,
  rounds: readonly PreparedRound[],
  options: RingDetectionOptions,
): RingCluster {
  const members = group.members.map((member) => member.userId).sort();
  const { identity, core } = identityEvidence(group.members, population, options);
  const players = core.map((member) => member.userId).sort();
  const { play, playPValues, roundsPlayed, roundsCovered } = playEvidence(players, rounds, options);

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
