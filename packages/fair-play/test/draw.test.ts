import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  drawWinner as engineDrawWinner,
  resolveRound,
} from '../../../services/game-engine/src/domain/resolution';
import {
  drawOrder,
  drawSeedCommitment,
  drawWinner,
  firstEligible,
  PRIZE_ORDER_LIMIT,
  prizeOrder,
  parseEventLines,
  verifyDraw,
  verifyDrawCommand,
  type PublishedGameEvent,
} from '../src';

const seedArbitrary = fc.string({ unit: 'grapheme', maxLength: 64 });
const candidatesArbitrary = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 24 }), {
  minLength: 1,
  maxLength: 40,
});

/** A game's published events, as the engine would publish them with the commitment. */
function gameEvents(seed: string, candidates: string[], winner: string): PublishedGameEvent[] {
  return [
    { gameId: 'g1', tournamentId: 't1', gameStarted: { drawSeedSha256: drawSeedCommitment(seed) } },
    { gameId: 'g1', roundResults: { roundNumber: 17, winningImageIds: ['r17-a'] } },
    {
      gameId: 'g1',
      gameEnded: {
        decidedBy: 'draw',
        winnerUserId: winner,
        drawSeed: seed,
        drawCandidateUserIds: candidates,
      },
    },
  ];
}

describe('the draw', () => {
  it('is the function the engine draws with', () => {
    expect(engineDrawWinner).toBe(drawWinner);
  });

  it('picks index = first 48 bits of SHA-256("underdog-draw:" + seed) mod count, of the sorted candidates', () => {
    // Vectors computed outside Node (Python's hashlib): the rule an auditor re-implements.
    expect(drawWinner('seed-1', ['eve', 'bob', 'dan', 'ann', 'cyd'])).toBe('dan');
    expect(drawWinner('the seed', ['c', 'a', 'b'])).toBe('a');
    expect(drawWinner('', ['x', 'y'])).toBe('y');
  });

  it('does not depend on the order the candidates are listed in', () => {
    fc.assert(
      fc.property(seedArbitrary, candidatesArbitrary, (seed, candidates) => {
        expect(drawWinner(seed, [...candidates].reverse())).toBe(drawWinner(seed, candidates));
      }),
      { numRuns: 500, seed: 28 },
    );
  });

  it('orders all the candidates by the seed: a Fisher-Yates shuffle of the sorted candidates, first the winner (issue 37)', () => {
    // Vectors computed outside Node (Python's hashlib): the rule an auditor re-implements.
    expect(drawOrder('seed-1', ['eve', 'bob', 'dan', 'ann', 'cyd'])).toEqual([
      'dan',
      'bob',
      'ann',
      'cyd',
      'eve',
    ]);
    expect(drawOrder('the seed', ['c', 'a', 'b'])).toEqual(['a', 'c', 'b']);
    fc.assert(
      fc.property(seedArbitrary, candidatesArbitrary, (seed, candidates) => {
        const order = drawOrder(seed, candidates);
        expect([...order].sort()).toEqual([...candidates].sort());
        expect(order[0]).toBe(drawWinner(seed, candidates));
        expect(drawOrder(seed, [...candidates].reverse())).toEqual(order);
        // Cut short, the same first positions.
        expect(drawOrder(seed, candidates, 3)).toEqual(order.slice(0, 3));
      }),
      { numRuns: 500, seed: 37 },
    );
  });

  it("puts a last standing winner first, then the last round's eliminated in their draw order", () => {
    expect(
      prizeOrder('seed-1', {
        decidedBy: 'last_standing',
        winnerUserId: 'zed',
        lastRoundEliminatedUserIds: ['eve', 'bob', 'dan', 'ann', 'cyd'],
      }),
    ).toEqual(['zed', 'dan', 'bob', 'ann', 'cyd', 'eve']);
    expect(prizeOrder('s', { decidedBy: 'no_winner' })).toEqual([]);
    expect(firstEligible(['a', 'b', 'c'], new Set(['a', 'c']))).toBe('b');
    expect(firstEligible(['a'], new Set(['a']))).toBeUndefined();
  });

  it('names at most PRIZE_ORDER_LIMIT players (a game end stays small), the first of the whole order', () => {
    const many = Array.from({ length: 1500 }, (_, index) => `u${index}`);
    const order = prizeOrder('s', {
      decidedBy: 'last_standing',
      winnerUserId: 'w',
      lastRoundEliminatedUserIds: many,
    });
    expect(order).toHaveLength(PRIZE_ORDER_LIMIT);
    expect(order).toEqual(['w', ...drawOrder('s', many)].slice(0, PRIZE_ORDER_LIMIT));
    // Such a last-standing order cannot be checked from the events (who was cut is not listed).
    const result = verifyDraw([
      { gameId: 'g1', gameStarted: { drawSeedSha256: drawSeedCommitment('s') } },
      {
        gameId: 'g1',
        gameEnded: {
          decidedBy: 'last_standing',
          winnerUserId: 'w',
          drawSeed: 's',
          drawOrderUserIds: order,
        },
      },
    ]);
    expect(result).toMatchObject({ orderHolds: undefined, verified: true });
  });

  it('commits to the seed with SHA-256 of its UTF-8 bytes', () => {
    expect(drawSeedCommitment('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('verifyDraw', () => {
  it('verifies a game decided by the draw from its events alone (issue 28, acceptance 3)', () => {
    // A real last round with the engine's rule: four survive round 17, so the draw decides.
    const seed = 'game-5f1c:9d2e7a';
    const outcome = resolveRound({
      roundNumber: 17,
      totalRounds: 17,
      imageIds: ['a', 'b', 'c', 'd'],
      alive: ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'],
      ballots: new Map([
        ['u1', 'a'],
        ['u2', 'a'],
        ['u3', 'b'],
        ['u4', 'b'],
        ['u5', 'c'],
        ['u6', 'c'],
        ['u7', 'c'],
      ]),
      drawSeed: seed,
    });
    if (outcome.end?.decidedBy !== 'draw') throw new Error('the fixture must end in a draw');
    const lines = [
      {
        gameId: 'g1',
        tournamentId: 't1',
        gameStarted: { totalRounds: 17, drawSeedSha256: drawSeedCommitment(seed) },
      },
      {
        gameId: 'g1',
        roundResults: { roundNumber: 17, winningImageIds: outcome.winningImageIds },
      },
      {
        gameId: 'g1',
        gameEnded: {
          decidedBy: 'draw',
          winnerUserId: outcome.end.winnerUserId,
          drawSeed: seed,
          drawCandidateUserIds: outcome.end.draw.candidateUserIds,
          roundsPlayed: 17,
        },
      },
    ]
      .map((event) => JSON.stringify(event))
      .join('\n');
    const result = verifyDraw(parseEventLines(lines));
    expect(result).toMatchObject({
      verified: true,
      commitmentHolds: true,
      candidates: ['u1', 'u2', 'u3', 'u4'],
      recomputedWinner: outcome.end.winnerUserId,
      publishedWinner: outcome.end.winnerUserId,
      problems: [],
    });
  });

  it('verifies a draw whose first in the order was disqualified in the last round: the next wins (issue 37)', () => {
    const candidates = ['a', 'b', 'c', 'd'];
    const order = drawOrder('seed-9', candidates);
    const events: PublishedGameEvent[] = [
      { gameId: 'g1', gameStarted: { drawSeedSha256: drawSeedCommitment('seed-9') } },
      { gameId: 'g1', participantDisqualified: { userId: order[0]!, afterGame: false } },
      {
        gameId: 'g1',
        gameEnded: {
          decidedBy: 'draw',
          winnerUserId: order[1]!,
          drawSeed: 'seed-9',
          drawCandidateUserIds: candidates,
          drawOrderUserIds: order,
        },
      },
    ];
    expect(verifyDraw(events)).toMatchObject({
      verified: true,
      recomputedWinner: order[1],
      orderHolds: true,
    });
    // Without that disqualification the same end is caught.
    expect(verifyDraw([events[0]!, events[2]!]).verified).toBe(false);
  });

  it('catches a seed that is not the committed one', () => {
    const events = gameEvents('seed-1', ['a', 'b', 'c'], drawWinner('seed-1', ['a', 'b', 'c']));
    events[0] = { gameId: 'g1', gameStarted: { drawSeedSha256: drawSeedCommitment('seed-2') } };
    const result = verifyDraw(events);
    expect(result.commitmentHolds).toBe(false);
    expect(result.verified).toBe(false);
    expect(result.problems).toEqual(['SHA-256 of the revealed seed is not the committed hash']);
  });

  it('catches a published winner the rule does not give', () => {
    const candidates = ['a', 'b', 'c'];
    const right = drawWinner('seed-1', candidates);
    const wrong = candidates.find((candidate) => candidate !== right)!;
    const result = verifyDraw(gameEvents('seed-1', candidates, wrong));
    expect(result.verified).toBe(false);
    expect(result.recomputedWinner).toBe(right);
    expect(result.problems).toEqual([
      `the published winner ${wrong} is not the recomputed ${right}`,
    ]);
  });

  it('does not verify a draw whose end lists no candidates (RoundResults lists no players)', () => {
    const events = gameEvents('s', ['a', 'b'], drawWinner('s', ['a', 'b']));
    const { drawCandidateUserIds: _listed, ...unlisted } = events[2]!.gameEnded!;
    events[2] = { gameId: 'g1', gameEnded: unlisted };
    expect(verifyDraw(events)).toMatchObject({
      verified: false,
      candidates: [],
      problems: ['a draw without candidates'],
    });
  });

  it('refuses events it cannot check, with the reason', () => {
    expect(() => verifyDraw([])).toThrow('no events');
    expect(() => verifyDraw([{ gameId: 'g1', gameStarted: {} }])).toThrow(
      'game g1: its first event carries no gameStarted.drawSeedSha256',
    );
    expect(() => verifyDraw(gameEvents('s', ['a'], 'a').slice(0, 2))).toThrow(
      'game g1: 0 gameEnded events, expected one',
    );
    expect(() => verifyDraw(gameEvents('s', ['a'], 'a'), 'other')).toThrow(
      'no events of game other',
    );
  });

  it('names the line of bad input', () => {
    expect(() => parseEventLines('{"gameId":"g"}\n\nnot json')).toThrow('line 3: not JSON');
    expect(() => parseEventLines('{"gameId":"g","gameStarted":{"drawSeedSha256":"xyz"}}')).toThrow(
      'line 1: gameStarted.drawSeedSha256: a SHA-256 in hex (64 characters)',
    );
    expect(() => parseEventLines('{"gameEnded":{"decidedBy":"draw"}}')).toThrow('line 1: gameId:');
  });
});

describe('tools/verify-draw', () => {
  function run(argv: string[], input: string | Error) {
    const out: string[] = [];
    const err: string[] = [];
    const code = verifyDrawCommand(argv, {
      readInput: () => {
        if (input instanceof Error) throw input;
        return input;
      },
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    return { code, out, err };
  }
  const candidates = ['zoe', 'adam', 'mia'];
  const winner = drawWinner('the seed', candidates);
  const jsonl = gameEvents('the seed', candidates, winner)
    .map((event) => JSON.stringify(event))
    .join('\n');

  it('prints the recomputed winner and that the commitment holds, exit code 0', () => {
    const { code, out, err } = run(['events.jsonl'], jsonl);
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toContain('commitment        holds');
    expect(out).toContain(`recomputed winner ${winner}`);
    expect(out).toContain('candidates        3 (sorted: adam, mia, zoe)');
    expect(out.at(-1)).toBe('verified');
  });

  it('exits 1 with the problem when a check fails', () => {
    const tampered = jsonl.replace(
      drawSeedCommitment('the seed'),
      drawSeedCommitment('another seed'),
    );
    const { code, out, err } = run(['events.jsonl'], tampered);
    expect(code).toBe(1);
    expect(out).toContain('commitment        DOES NOT HOLD');
    expect(err).toEqual(['problem: SHA-256 of the revealed seed is not the committed hash']);
  });

  it('verifies the worked example of docs/fairness.md (examples/draw.jsonl)', () => {
    const example = readFileSync(join(__dirname, '..', 'examples', 'draw.jsonl'), 'utf8');
    const { code, out } = run(['examples/draw.jsonl'], example);
    expect(code).toBe(0);
    expect(out).toContain('recomputed winner u-anna');
    expect(out).toContain('commitment        holds');
    expect(out).toContain('order             holds');
    expect(out).toContain(
      'after the game    u-anna disqualified: winner u-ben, next eligible u-ben',
    );
  });

  it('exits 2 on unreadable input or a wrong command line', () => {
    expect(run([], jsonl)).toMatchObject({
      code: 2,
      err: ['usage: verify-draw <events.jsonl | -> [gameId]'],
    });
    expect(run(['missing.jsonl'], new Error('ENOENT'))).toMatchObject({
      code: 2,
      err: ['cannot read missing.jsonl: ENOENT'],
    });
    expect(run(['bad.jsonl'], 'nope')).toMatchObject({ code: 2, err: ['line 1: not JSON'] });
  });
});
