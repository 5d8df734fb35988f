import { ruleTimings, timingsOfGame } from '../src/domain/timings';

describe('the timings of a game', () => {
  it("are the rules' own for any round a tournament may have", () => {
    expect(timingsOfGame(ruleTimings, 5)).toBe(ruleTimings);
    expect(timingsOfGame(ruleTimings, 120)).toBe(ruleTimings);
  });

  it('show the results of rounds shorter than the rules allow (the warm-up) as long as their voting', () => {
    expect(timingsOfGame(ruleTimings, 1)).toEqual({ ...ruleTimings, resultsMs: 1_000 });
    expect(timingsOfGame({ ...ruleTimings, resultsMs: 500 }, 2).resultsMs).toBe(500);
  });
});
