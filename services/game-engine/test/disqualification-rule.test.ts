import { redecideOutcome } from '../src/domain/disqualification';
import { drawWinner, resolveRound } from '../src/domain/resolution';
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
    expect(outcome.end).toEqual({ decidedBy: 'last_standing', winnerUserId: 'cyd' });
  });

  it('in the last round draws among the others only', () => {
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
    expect(outcome.end).toMatchObject({
      decidedBy: 'draw',
      draw: { seed: 'seed', candidateUserIds: ['ann', 'cyd'] },
      winnerUserId: drawWinner('seed', ['ann', 'cyd']),
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

describe('the outcome re-decided after the game (docs/fairness.md)', () => {
  it('changes nothing when the winner is not disqualified', () => {
    expect(redecideOutcome(finished({}, ['dan']))).toEqual({
      changed: false,
      winnerUserId: 'win',
      draw: undefined,
    });
  });

  it("draws a last-standing winner's replacement among the last round's eliminated, not disqualified, with the game's seed", () => {
    const outcome = redecideOutcome(finished({}, ['win', 'bob']));
    const winner = drawWinner('the-seed', ['ann', 'cyd']);
    expect(outcome).toEqual({
      changed: true,
      winnerUserId: winner,
      draw: { seed: 'the-seed', candidateUserIds: ['ann', 'cyd'], winnerUserId: winner },
    });
  });

  it('redoes a draw over its other candidates with the same seed, and is idempotent', () => {
    const draw = { seed: 's2', candidateUserIds: ['ann', 'bob', 'win'], winnerUserId: 'win' };
    const outcome = redecideOutcome(finished({ draw, drawSeed: 's2' }, ['win']));
    const winner = drawWinner('s2', ['ann', 'bob']);
    expect(outcome.winnerUserId).toBe(winner);
    expect(outcome.draw?.candidateUserIds).toEqual(['ann', 'bob']);
    // Applied again to what it produced: nothing changes.
    expect(
      redecideOutcome(
        finished({ draw: outcome.draw, winnerUserId: winner, drawSeed: 's2' }, ['win']),
      ).changed,
    ).toBe(false);
  });

  it('leaves no winner when no candidate is left', () => {
    expect(redecideOutcome(finished({}, ['win', 'ann', 'bob', 'cyd']))).toEqual({
      changed: true,
      winnerUserId: undefined,
      draw: undefined,
    });
  });
});
