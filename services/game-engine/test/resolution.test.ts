import fc from 'fast-check';
import {
  drawOrder,
  drawWinner,
  resolveRound,
  roundLeavers,
  type RoundInput,
} from '../src/domain/resolution';

const imageIds = (round: number) => [0, 1, 2, 3].map((m) => `round-${round}-image-${m}`);

/** A round: some alive players, each voting for one of the four images or not at all. */
const roundArbitrary = (options: { round?: fc.Arbitrary<number> } = {}) =>
  fc
    .record({
      roundNumber: options.round ?? fc.integer({ min: 1, max: 17 }),
      players: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), {
        minLength: 0,
        maxLength: 40,
      }),
      picks: fc.array(fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), {
        minLength: 40,
        maxLength: 40,
      }),
      seed: fc.string(),
    })
    .map(({ roundNumber, players, picks, seed }): RoundInput => {
      const ids = imageIds(roundNumber);
      const ballots = new Map<string, string>();
      players.forEach((user, i) => {
        const pick = picks[i];
        if (pick !== undefined) ballots.set(user, ids[pick]!);
      });
      return {
        roundNumber,
        totalRounds: 17,
        imageIds: ids,
        alive: players,
        ballots,
        drawSeed: seed,
      };
    });

/** The reference model: the rules read literally, written the slow way. */
function reference(input: RoundInput) {
  const count = (image: string) =>
    input.alive.filter((user) => input.ballots.get(user) === image).length;
  const counted = input.imageIds.map((image) => ({ image, votes: count(image) }));
  const voted = counted.filter((entry) => entry.votes > 0);
  const least = voted.reduce((min, entry) => Math.min(min, entry.votes), Infinity);
  const winners = voted.filter((entry) => entry.votes === least).map((entry) => entry.image);
  const advanced = input.alive.filter((user) => winners.includes(input.ballots.get(user) ?? ''));
  const eliminated = input.alive.filter((user) => !advanced.includes(user));
  return { counted, winners, advanced: [...advanced].sort(), eliminated: [...eliminated].sort() };
}

describe('resolveRound', () => {
  it('agrees with the reference model on winners, advancing and eliminated players', () => {
    fc.assert(
      fc.property(roundArbitrary(), (input) => {
        const outcome = resolveRound(input);
        const model = reference(input);
        expect(outcome.winningImageIds).toEqual(model.winners);
        expect(outcome.advanced).toEqual(model.advanced);
        expect(outcome.eliminated).toEqual(model.eliminated);
        expect(outcome.results.map((result) => result.votes)).toEqual(
          model.counted.map((entry) => entry.votes),
        );
      }),
    );
  });

  it('makes every image tied at the smallest non-zero count a winner', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 2, max: 4 }), (n, tied) => {
        const ids = imageIds(3);
        const ballots = new Map<string, string>();
        const alive: string[] = [];
        // `tied` images get n votes each; the others get n + 1 (or none when there are 4 tied).
        ids.forEach((image, position) => {
          const votes = position < tied ? n : n + 1;
          for (let v = 0; v < votes; v++) {
            const user = `${image}-voter-${v}`;
            alive.push(user);
            ballots.set(user, image);
          }
        });
        const outcome = resolveRound({
          roundNumber: 3,
          totalRounds: 17,
          imageIds: ids,
          alive,
          ballots,
          drawSeed: 's',
        });
        expect(outcome.winningImageIds).toEqual(ids.slice(0, tied));
        expect(outcome.advanced).toHaveLength(n * tied);
        expect(outcome.results.filter((result) => result.isWinner)).toHaveLength(tied);
      }),
    );
  });

  it('eliminates everyone and ends without a winner when nobody voted', () => {
    fc.assert(
      fc.property(roundArbitrary(), (input) => {
        const outcome = resolveRound({ ...input, ballots: new Map() });
        expect(outcome.winningImageIds).toEqual([]);
        expect(outcome.advanced).toEqual([]);
        expect(outcome.eliminated).toEqual([...input.alive].sort());
        expect(outcome.end).toEqual({ decidedBy: 'no_winner', order: [] });
        expect(outcome.results.every((result) => result.percentage === 0)).toBe(true);
      }),
    );
  });

  it('ends with the last one standing when exactly one advances, in any round', () => {
    fc.assert(
      fc.property(roundArbitrary(), (input) => {
        const outcome = resolveRound(input);
        if (outcome.advanced.length !== 1) return;
        // The prize's order: the winner, then the round's eliminated by the seed (issue 37).
        expect(outcome.end).toEqual({
          decidedBy: 'last_standing',
          winnerUserId: outcome.advanced[0],
          order: [outcome.advanced[0], ...drawOrder(input.drawSeed, outcome.eliminated)],
        });
      }),
    );
  });

  it('goes on before round 17 while several advance', () => {
    fc.assert(
      fc.property(roundArbitrary({ round: fc.integer({ min: 1, max: 16 }) }), (input) => {
        const outcome = resolveRound(input);
        if (outcome.advanced.length >= 2) expect(outcome.end).toBeUndefined();
      }),
    );
  });

  it('draws the winner among several survivors of round 17, reproducibly from the stored seed', () => {
    fc.assert(
      fc.property(roundArbitrary({ round: fc.constant(17) }), (input) => {
        const outcome = resolveRound(input);
        if (outcome.advanced.length < 2) return;
        const end = outcome.end;
        if (end?.decidedBy !== 'draw') throw new Error(`expected a draw, got ${end?.decidedBy}`);
        expect(end.draw.candidateUserIds).toEqual(outcome.advanced);
        expect(outcome.advanced).toContain(end.winnerUserId);
        expect(end.draw.seed).toBe(input.drawSeed);
        // Anyone with the stored seed and candidates (in any order) redoes the draw.
        const shuffled = [...end.draw.candidateUserIds].reverse();
        expect(drawWinner(end.draw.seed, shuffled)).toBe(end.winnerUserId);
        expect(resolveRound(input).end).toEqual(end);
      }),
    );
  });

  it('gives every candidate a chance in the draw (different seeds pick different winners)', () => {
    const candidates = ['ann', 'bob', 'cyd'];
    const winners = new Set(
      Array.from({ length: 300 }, (_, i) => drawWinner(`seed-${i}`, candidates)),
    );
    expect([...winners].sort()).toEqual(candidates);
  });

  it('reports whole percentages that add up to about 100 when someone voted', () => {
    fc.assert(
      fc.property(roundArbitrary(), (input) => {
        const outcome = resolveRound(input);
        if (outcome.totalVotes === 0) return;
        const sum = outcome.results.reduce((total, result) => total + result.percentage, 0);
        expect(Math.abs(sum - 100)).toBeLessThanOrEqual(2);
        for (const result of outcome.results)
          expect(Number.isInteger(result.percentage)).toBe(true);
      }),
    );
  });

  it("sends out resolveRound's eliminated, and after any part of them, exactly the rest", () => {
    fc.assert(
      fc.property(roundArbitrary(), fc.nat(), fc.nat(), (input, excludedAt, gone) => {
        const excluded = new Set(input.alive.filter((_, i) => i === excludedAt % 7));
        const outcome = resolveRound({ ...input, excluded });
        const leavers = (alive: readonly string[]) =>
          roundLeavers({
            alive,
            ballots: input.ballots,
            winningImageIds: outcome.winningImageIds,
            excluded,
          });
        expect(leavers(input.alive)).toEqual(outcome.eliminated);
        // A takeover after the first `gone` of them went out: the others, and no one else.
        const out = new Set(outcome.eliminated.slice(0, gone % (outcome.eliminated.length + 1)));
        expect(leavers(input.alive.filter((user) => !out.has(user)))).toEqual(
          outcome.eliminated.filter((user) => !out.has(user)),
        );
      }),
    );
  });
});
