import {
  coveringP,
  detectRings,
  fisherCombine,
  type ParticipantSignals,
  type RoundVotes,
} from '../src';

const hour = 3_600_000;
const day = 24 * hour;
const start = Date.UTC(2026, 10, 20, 19);

function participant(
  userId: string,
  overrides: Partial<ParticipantSignals> = {},
): ParticipantSignals {
  return {
    userId,
    deviceIds: [`device-${userId}`],
    addressPrefixes: [`v4:${userId}`],
    ...overrides,
  };
}

/** Honest background: `count` players registered over two weeks on their own networks. */
function crowd(count: number): ParticipantSignals[] {
  return Array.from({ length: count }, (_, i) =>
    participant(`p${String(i).padStart(3, '0')}`, {
      registeredAt: start - 14 * day + ((i * 7919) % count) * ((14 * day) / count),
      userAgents: [`ua-${i % 40}`],
    }),
  );
}

function round(roundNumber: number, votes: [string, number, number][]): RoundVotes {
  const imageIds = [0, 1, 2, 3].map((i) => `r${roundNumber}-${i}`);
  return {
    roundNumber,
    imageIds,
    votes: votes.map(([userId, image, castAt]) => ({ userId, imageId: imageIds[image]!, castAt })),
  };
}

describe('detectRings', () => {
  it('links accounts that share a device or an address prefix, and says so', () => {
    const report = detectRings({
      participants: [
        participant('a', { deviceIds: ['tablet'] }),
        participant('b', { deviceIds: ['tablet'], addressPrefixes: ['v4:home'] }),
        participant('c', { addressPrefixes: ['v4:home'] }),
        participant('d'),
      ],
      rounds: [],
    });
    expect(report.clusters).toHaveLength(1);
    expect(report.clusters[0]!.members).toEqual(['a', 'b', 'c']);
    expect(report.clusters[0]!.evidence.map((item) => item.text)).toEqual([
      '2 accounts share device tablet',
      '2 accounts share address prefix home',
    ]);
    // A link alone is a household, not a ring.
    expect(report.clusters[0]!.flagged).toBe(false);
    expect(report.flagged).toEqual([]);
  });

  it('flags accounts made together in one browser that split their votes, but not an honest flatmate', () => {
    const ring = Array.from({ length: 8 }, (_, i) =>
      participant(`ring-${i}`, {
        registeredAt: start - 2 * day + i * 9 * 60_000,
        addressPrefixes: ['v4:ring-home', ...(i >= 4 ? ['v4:ring-second-line'] : [])],
        userAgents: ['ua-operator'],
      }),
    );
    const flatmate = participant('flatmate', {
      registeredAt: start - 9 * day,
      addressPrefixes: ['v4:ring-home'],
      userAgents: ['ua-3'],
    });
    const everyone = [...crowd(200), ...ring, flatmate];
    const round1 = round(1, [
      ...everyone
        .filter((p) => p.userId.startsWith('p') || p.userId === 'flatmate')
        .map((p, i): [string, number, number] => [
          p.userId,
          (i * 3) % 4,
          start + 1_000 + ((i * 97) % 15_000),
        ]),
      ...ring.map((p, i): [string, number, number] => [p.userId, i % 4, start + 6_000 + i * 400]),
    ]);
    const report = detectRings({ participants: everyone, rounds: [round1] });
    const cluster = report.clusters[0]!;
    expect(cluster.members).toEqual([...ring.map((p) => p.userId), 'flatmate'].sort());
    expect(cluster.flagged).toBe(true);
    expect(cluster.score).toBeGreaterThanOrEqual(0.5);
    expect(report.flagged).toEqual(ring.map((p) => p.userId).sort());
    const texts = cluster.evidence.map((item) => item.text);
    expect(texts).toContain('9 accounts share address prefix ring-home');
    expect(texts).toContain('4 accounts share address prefix ring-sec…');
    expect(texts).toContain('8 accounts registered within 1.1 h');
    expect(texts).toContain(
      '8 accounts registered within 1.1 h on one browser build (user agent ua-opera…)',
    );
    expect(texts).toContain('8 votes split over 4 of 4 images (2/2/2/2) in round 1');
  });

  it('gives the same report whatever the order of its input', () => {
    const participants = [
      ...crowd(30),
      participant('x', {
        addressPrefixes: ['v4:p001'],
        registeredAt: start - day,
        userAgents: ['ua-1'],
      }),
    ];
    const rounds = [
      round(
        1,
        participants.map((p, i) => [p.userId, i % 4, start + i * 100]),
      ),
    ];
    const forward = detectRings({ participants, rounds });
    const backward = detectRings({
      participants: [...participants].reverse(),
      rounds: rounds.map((r) => ({ ...r, votes: [...r.votes].reverse() })),
    });
    expect(backward).toEqual(forward);
  });

  it('takes a user listed twice as one participant', () => {
    const report = detectRings({
      participants: [
        participant('a', { deviceIds: ['d1'] }),
        participant('a', { deviceIds: ['d2'] }),
        participant('b', { deviceIds: ['d2'] }),
      ],
      rounds: [],
    });
    expect(report.clusters.map((cluster) => cluster.members)).toEqual([['a', 'b']]);
  });

  it('reports nothing for a tournament without participants', () => {
    expect(detectRings({ participants: [], rounds: [] })).toEqual({ clusters: [], flagged: [] });
  });
});

describe('the chance models', () => {
  it('finds an even split over every image rarer than a bunched one', () => {
    const crowdCounts = [50, 40, 30, 20];
    expect(coveringP([2, 2, 2, 2], crowdCounts)).toBeLessThan(0.05);
    expect(coveringP([1, 1, 1, 1], crowdCounts)).toBeLessThan(coveringP([2, 1, 1, 0], crowdCounts));
    expect(coveringP([4, 0, 0, 0], crowdCounts)).toBeCloseTo(1, 10);
    // Thirty people who split like the crowd cover every image anyway.
    expect(coveringP([12, 8, 6, 4], crowdCounts)).toBeGreaterThan(0.5);
  });

  it('combines p-values as Fisher does', () => {
    expect(fisherCombine([])).toBe(1);
    expect(fisherCombine([0.5])).toBeCloseTo(0.5, 10);
    // −2 ln(p₁p₂) is χ² with 4 degrees of freedom: P = p₁p₂ (1 − ln p₁p₂).
    expect(fisherCombine([0.01, 0.01])).toBeCloseTo(0.0001 * (1 - Math.log(0.0001)), 10);
  });
});
