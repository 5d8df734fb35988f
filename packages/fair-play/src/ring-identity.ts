// Who a linked group's accounts are (rings.ts, `scoreGroup`): registered in a burst, and made
// together in one browser.
import type { Evidence, ParticipantSignals, RingDetectionOptions } from './ring-model';
import { duration, shortLabel } from './ring-text';
import { logChoose, surprise, tightestSubset } from './statistics';

export interface Population {
  /** Everyone's registration times, sorted. */
  registrations: number[];
  /** User agent → how many participants were seen with it. */
  userAgents: Map<string, number>;
  size: number;
}

/**
 * The group's identity evidence: a registration burst, and the accounts made together in one
 * browser. `core`, whose play is then examined, is those made together, or else the whole group.
 */
export function identityEvidence(
  members: readonly ParticipantSignals[],
  population: Population,
  options: RingDetectionOptions,
): { identity: Evidence[]; core: readonly ParticipantSignals[] } {
  const identity: Evidence[] = [];
  const registered = members.filter((member) => member.registeredAt !== undefined);
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
  let core: readonly ParticipantSignals[] = members;
  const made = madeTogether(members, population, options);
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
  return { identity, core };
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
