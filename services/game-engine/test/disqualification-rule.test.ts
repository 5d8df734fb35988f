import fc from 'fast-check';
import { redecideOutcome } from '../src/domain/disqualification';
import { drawOrder, firstEligible, resolveRound } from '../src/domain/resolution';
import type { FinishedGame } from '../src/persistence';

const images = ['i0', 'i1', 'i2', 'i3'];

describe('a round with a disqualified participant', () => {
  it('eliminates them whatever they voted, keeps their vote in the tally, and decides the end without them', () => {
    const outcome = resolveRound({
      roundNumber: 3,
      totalRounds: 17,
      imageIds: images,
      alive: ['ann', 'bob', 'cyd', 'dan'],
      ballots: new Map([
        ['ann', 'i0'],
        ['bob', 'i0'],
        ['cyd', 'i1'],
        ['dan', 'i2'],
      ]),
      drawSeed: 'seed',
      excluded: new Set(['dan']),
    });
    expect(outcome.results.map((r) => r.votes)).toEqual([2, 1, 1, 0]);
    expect(outcome.winningImageIds).toEqual(['i1', 'i2']);
    expect(outcome.advanced).toEqual(['cyd']);
    expect(outcome.eliminated).toEqual(['ann', 'bob', 'dan']);
    // The prize's order: cyd, then the round's eliminated (dan too, never eligible) by the seed.
    expect(outcome.end).toEqual({
      decidedBy: 'last_standing',
      winnerUserId: 'cyd',
      order: ['cyd', ...drawOrder('seed', ['ann', 'bob', 'dan'])],
    });
  });

  it('in the last round orders everyone on a winning image, the disqualified too, and the first not disqualified wins (issue 37)', () => {
    const outcome = resolveRound({
      roundNumber: 17,
      totalRounds: 17,
      imageIds: images,
      alive: ['ann', 'bob', 'cyd'],
      ballots: new Map([
        ['ann', 'i0'],
        ['bob', 'i0'],
        ['cyd', 'i0'],
      ]),
      drawSeed: 'seed',
      excluded: new Set(['bob']),
    });
    expect(outcome.advanced).toEqual(['ann', 'cyd']);
    // Disqualifying bob in the last round only passes the prize down the seed's order over all
    // three: it cannot make a new draw over the two left.
    const order = drawOrder('seed', ['ann', 'bob', 'cyd']);
    expect(outcome.end).toMatchObject({
      decidedBy: 'draw',
      draw: { seed: 'seed', candidateUserIds: ['ann', 'bob', 'cyd'] },
      winnerUserId: order.find((user) => user !== 'bob'),
      order,
    });
  });
});

function finished(overrides: Partial<FinishedGame>, dq: string[] = []): FinishedGame {
  const participants = [
    ['ann', 4],
    ['bob', 4],
    ['cyd', 4],
    ['dan', 2],
    ['win', 0],
  ] as const;
  return {
    gameId: 'g',
    roundsPlayed: 4,
    winnerUserId: 'win',
    drawSeed: 'the-seed',
    draw: undefined,
    drawOrder: undefined,
    participants: participants.map(([userId, eliminatedInRound]) => ({
      userId,
      username: userId,
      eliminatedInRound,
      lostDraw: false,
      disqualificationReason: dq.includes(userId) ? 'ring' : undefined,
    })),
    ...overrides,
  };
}

/**
 * The records' re-decision as `Disqualifications` applies it (`winnerRedecided`): the winner
 * replaced, the order stored with it.
 */
function applied(game: FinishedGame): FinishedGame {
  const outcome = redecideOutcome(game);
  if (!outcome.changed) return game;
  return { ...game, winnerUserId: outcome.winnerUserId, drawOrder: outcome.order };
}

function disqualify(game: FinishedGame, userId: string): FinishedGame {
  return applied({
    ...game,
    participants: game.participants.map((p) =>
      p.userId === userId && p.disqualificationReason === undefined
        ? { ...p, disqualificationReason: 'ring' }
        : p,
    ),
  });
}

describe('the outcome re-decided after the game (docs/fairness.md, issue 37)', () => {
  it('changes nothing when the winner is not disqualified', () => {
    expect(redecideOutcome(finished({ drawOrder: ['win', 'cyd'] }, ['dan']))).toEqual({
      changed: false,
      winnerUserId: 'win',
      order: ['win', 'cyd'],
    });
  });

  it("gives a disqualified winner's prize to the next eligible in the stored order, never a new draw", () => {
    const order = ['win', 'cyd', 'bob', 'ann'];
    const outcome = redecideOutcome(finished({ drawOrder: order }, ['win', 'cyd']));
    expect(outcome).toEqual({ changed: true, winnerUserId: 'bob', order });
  });

  it('for a game recorded before the order was, recomputes it from the revealed seed and what the end recorded', () => {
    // Last standing: the winner, then the last round's eliminated (ann, bob, cyd) by the seed.
    const order = ['win', ...drawOrder('the-seed', ['ann', 'bob', 'cyd'])];
    expect(redecideOutcome(finished({}, ['win']))).toEqual({
      changed: true,
      winnerUserId: order[1],
      order,
    });
    // A draw: its candidates by the seed.
    const draw = { seed: 's2', candidateUserIds: ['ann', 'bob', 'win'], winnerUserId: 'win' };
    const drawn = drawOrder('s2', ['ann', 'bob', 'win']);
    const game = finished({ draw, drawSeed: 's2', winnerUserId: drawn[0] }, [drawn[0]!]);
    expect(redecideOutcome(game)).toMatchObject({ winnerUserId: drawn[1], order: drawn });
  });

  it('without a seed (a game from before seeds; no game-id fallback) has no one after the winner', () => {
    expect(redecideOutcome(finished({ drawSeed: undefined }, ['win']))).toEqual({
      changed: true,
      winnerUserId: undefined,
      order: ['win'],
    });
  });

  it('leaves no winner when no one in the order is eligible', () => {
    expect(redecideOutcome(finished({ drawOrder: ['win', 'ann'] }, ['win', 'ann']))).toEqual({
      changed: true,
      winnerUserId: undefined,
      order: ['win', 'ann'],
    });
  });

  /**
   * Issue 37, acceptance 4: whatever the administrator disqualifies after the reveal, in whatever
   * order, the winner is always the first eligible candidate of the order published at the
   * reveal. On the re-draw of issue 28 (the draw made again over the candidates left) this fails:
   * who wins then depended on which subset was left, which an admin could pick.
   */
  it('property: after any sequence of disqualifications the winner is the first eligible in the order published at the reveal', () => {
    const users = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8', 'u9'];
    const gameArbitrary = fc.record({
      seed: fc.string({
        unit: fc.constantFrom(...'0123456789abcdef'),
        minLength: 64,
        maxLength: 64,
      }),
      // The last round (17 of 17): who is alive and what each voted (-1: no vote).
      alive: fc.uniqueArray(fc.constantFrom(...users), { minLength: 1, maxLength: users.length }),
      votes: fc.array(fc.integer({ min: -1, max: 3 }), {
        minLength: users.length,
        maxLength: users.length,
      }),
      // Disqualified during the last round: out whatever they voted.
      excluded: fc.subarray(users, { maxLength: 3 }),
      // After the reveal, in this order (repeats included: the second changes nothing).
      after: fc.array(fc.constantFrom(...users, 'out1', 'out2'), { maxLength: 12 }),
      recordedOrder: fc.boolean(),
    });
    fc.assert(
      fc.property(gameArbitrary, ({ seed, alive, votes, excluded, after, recordedOrder }) => {
        const ballots = new Map<string, string>();
        alive.forEach((user) => {
          const vote = votes[users.indexOf(user)]!;
          if (vote >= 0) ballots.set(user, images[vote]!);
        });
        const outcome = resolveRound({
          roundNumber: 17,
          totalRounds: 17,
          imageIds: images,
          alive,
          ballots,
          drawSeed: seed,
          excluded: new Set(excluded),
        });
        const end = outcome.end!;
        // The order published at the reveal (GameEnded.drawOrderUserIds); its first not
        // disqualified (in the last round) is the winner.
        const published = end.order;
        const revealedWinner = 'winnerUserId' in end ? end.winnerUserId : undefined;
        const disqualifiedInGame = new Set(excluded.filter((user) => alive.includes(user)));
        if (revealedWinner !== undefined) {
          expect(firstEligible(published, disqualifiedInGame)).toBe(revealedWinner);
        }
        // The records as the game's end leaves them: everyone else out in round 17 or before.
        const eliminated = new Set(outcome.eliminated);
        let game: FinishedGame = {
          gameId: 'g',
          roundsPlayed: 17,
          winnerUserId: revealedWinner,
          drawSeed: seed,
          draw: end.decidedBy === 'draw' ? end.draw : undefined,
          drawOrder: recordedOrder ? published : undefined,
          participants: [...users, 'out1', 'out2'].map((userId) => ({
            userId,
            username: userId,
            eliminatedInRound: eliminated.has(userId) ? 17 : alive.includes(userId) ? 0 : 5,
            lostDraw: false,
            disqualificationReason: excluded.includes(userId) ? 'ring' : undefined,
          })),
        };
        const disqualified = new Set(disqualifiedInGame);
        for (const userId of after) {
          game = disqualify(game, userId);
          disqualified.add(userId);
          const expected =
            revealedWinner === undefined ? undefined : firstEligible(published, disqualified);
          expect(game.winnerUserId).toBe(expected);
          // The order itself never moves.
          expect(redecideOutcome(game).order).toEqual(published);
        }
      }),
      { numRuns: 2000, seed: 37 },
    );
  });
});
