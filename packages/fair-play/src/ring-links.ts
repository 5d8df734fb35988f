// The first step of ring detection (rings.ts): one entry per user, and the groups of accounts
// linked by a shared device or address prefix, each with the links as evidence.
import type { Evidence, EvidenceKind, ParticipantSignals } from './ring-model';
import { shortLabel } from './ring-text';

export interface LinkedGroup {
  members: ParticipantSignals[];
  links: Evidence[];
}

export function linkedGroups(participants: readonly ParticipantSignals[]): LinkedGroup[] {
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

/** One entry per user (a caller may list a user twice): their signals together, the first registration. */
export function mergeByUser(participants: readonly ParticipantSignals[]): ParticipantSignals[] {
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
