import { simulateTournament, type SimulationResult } from './simulation';

// Issue 28, acceptance 1: a game of 200 honest bots of mixed strategies (random, favourite image,
// least-popular guessers, copycats) on realistic networks, plus a ring of 8 accounts on two
// address prefixes that covers the images; resolved round by round with the engine's own
// resolveRound. Every seed must pass; the figures of each and the worst are printed.
const seeds = Array.from({ length: 20 }, (_, index) => index + 1);
const honestBots = 200;
const maxHonestFlagged = Math.floor(honestBots * 0.02);

function table(results: readonly (SimulationResult & { seed: number })[]): string {
  const lines = results.map(
    (result) =>
      `seed ${String(result.seed).padStart(2)}: ${result.roundsPlayed} rounds (${result.decidedBy}), ` +
      `ring flagged ${result.ringFlagged}/${result.ring.length}, honest flagged ${result.honestFlagged}/${result.honest.length}, ` +
      `top score ${result.report.clusters[0]?.score ?? 0}`,
  );
  const worstRing = Math.min(...results.map((result) => result.ringFlagged));
  const worstHonest = Math.max(...results.map((result) => result.honestFlagged));
  lines.push(
    `worst: ring flagged ${worstRing}${results[0]!.ring.length > 0 ? `/${results[0]!.ring.length}` : ''}, ` +
      `honest flagged ${worstHonest}/${results[0]!.honest.length} (${((worstHonest * 100) / results[0]!.honest.length).toFixed(1)}%)`,
  );
  return lines.join('\n');
}

describe('ring detection on a simulated tournament (issue 28, acceptance 1)', () => {
  it('flags all 8 ring accounts and at most 2% of 200 honest bots, on every one of 20 seeds', () => {
    const results = seeds.map((seed) => ({
      seed,
      ...simulateTournament({ seed, honest: honestBots, ringSize: 8 }),
    }));
    console.log(
      `200 honest bots + a ring of 8, seeds ${seeds[0]}–${seeds.at(-1)}:\n${table(results)}`,
    );
    for (const result of results) {
      expect({ seed: result.seed, ringFlagged: result.ringFlagged }).toEqual({
        seed: result.seed,
        ringFlagged: 8,
      });
      expect(result.honestFlagged).toBeLessThanOrEqual(maxHonestFlagged);
      const ringCluster = result.report.clusters.find((cluster) =>
        cluster.members.includes('ring-0'),
      )!;
      expect(ringCluster.evidence.map((item) => item.kind)).toEqual(
        expect.arrayContaining(['sharedAddressPrefix', 'registrationBurst', 'sharedUserAgent']),
      );
    }
  });

  it('flags at most 2% of 200 honest bots when there is no ring, on every one of 20 seeds', () => {
    const results = seeds.map((seed) => ({
      seed,
      ...simulateTournament({ seed, honest: honestBots, ringSize: 0 }),
    }));
    console.log(`200 honest bots, no ring, seeds ${seeds[0]}–${seeds.at(-1)}:\n${table(results)}`);
    for (const result of results) {
      expect({ seed: result.seed, honestFlagged: result.honestFlagged }).toEqual({
        seed: result.seed,
        honestFlagged: expect.any(Number),
      });
      expect(result.honestFlagged).toBeLessThanOrEqual(maxHonestFlagged);
    }
  });

  it('keeps the limit docs/fairness.md states: a ring made over ten days in different browsers is not flagged', () => {
    // Its play alone (one or two rounds of covering in a crowd of 200) is too weak a signal. If
    // detection learns to catch it, this test fails: update the limits in docs/fairness.md.
    const results = seeds.map((seed) => ({
      seed,
      ...simulateTournament({ seed, honest: honestBots, ringSize: 8, carefulRing: true }),
    }));
    console.log(
      `200 honest bots + a careful ring of 8, seeds ${seeds[0]}–${seeds.at(-1)}:\n${table(results)}`,
    );
    for (const result of results) {
      expect(result.ringFlagged).toBe(0);
      expect(result.honestFlagged).toBeLessThanOrEqual(maxHonestFlagged);
    }
  });

  it('is deterministic: the same seed gives the same report', () => {
    const first = simulateTournament({ seed: 7, honest: honestBots, ringSize: 8 });
    const second = simulateTournament({ seed: 7, honest: honestBots, ringSize: 8 });
    expect(second.report).toEqual(first.report);
  });
});
