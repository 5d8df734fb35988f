import type { PlayerOutcome } from '../driver/driver-contract';
import { VOTING_GRACE_MS } from '@underdog/rules';
import { ackBySecond, compareFigures, percentile, summarise, type Figures } from '../driver/stats';

const vote = (votedAt: number, ackMs: number, answer = 'vote_processed'): PlayerOutcome => ({
  username: `p${votedAt}-${ackMs}`,
  tournament: 0,
  gateway: 0,
  votedImageId: 'r1-a',
  votedAt,
  ackMs,
  answer,
});

describe('the benchmark statistics', () => {
  it('takes the nearest-rank percentile', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 99)).toBe(0);
  });

  it('counts refusals and unanswered votes apart from the acknowledged ones', () => {
    const summary = summarise([
      vote(0, 5),
      vote(1, 9, 'VOTING_CLOSED'),
      { username: 'silent', tournament: 0, gateway: 0, votedImageId: 'r1-b', votedAt: 2 },
      // Results 500 ms after the grace (measured from the deadline, as the players see it).
      { username: 'watcher', tournament: 0, gateway: 0, resultsMs: VOTING_GRACE_MS + 500 },
    ]);
    expect(summary.votesSent).toBe(3);
    expect(summary.acked).toBe(1);
    expect(summary.notAcked).toEqual({ VOTING_CLOSED: 1, NO_ANSWER: 1 });
    expect(summary.resultsMs.p50).toBe(500);
    expect(summary.resultsWithin1s).toBe(1);
  });

  it('groups acknowledged votes by the second of voting they were sent in', () => {
    const start = 1_000_000;
    const seconds = ackBySecond([
      vote(start, 4),
      vote(start + 400, 10),
      vote(start + 1_200, 300),
      vote(start + 1_900, 20),
      vote(start + 1_950, 900, 'VOTING_CLOSED'),
      vote(start + 3_100, 6),
    ]);
    expect(seconds).toEqual([
      { second: 0, votes: 2, p99: 10, max: 10 },
      { second: 1, votes: 2, p99: 300, max: 300 },
      { second: 3, votes: 1, p99: 6, max: 6 },
    ]);
    expect(ackBySecond([])).toEqual([]);
  });
});

describe('comparing two tournaments at once with one alone', () => {
  const figures = (ackP99: number, resultsWithin1s = 100): Figures => ({
    counted: 100,
    ackP50: 5,
    ackP95: 40,
    ackP99,
    resultsP50: 200,
    resultsP95: 300,
    resultsP99: 320,
    resultsWithin1s,
  });

  it('compares the medians over the runs, each tournament of a pair one value', () => {
    const verdict = compareFigures(
      [figures(80), figures(100), figures(300)],
      [figures(90), figures(110), figures(115), figures(500)],
    );
    expect(verdict.single.ackP99).toBe(100);
    expect(verdict.pair.ackP99).toBe(112.5);
    expect(verdict.rows.find((row) => row.figure === 'ack p99 (ms)')).toMatchObject({
      change: 0.125,
      within: true,
    });
    expect(verdict.within).toBe(true);
  });

  it('fails a latency more than 20% higher, and a share more than 20% lower', () => {
    expect(compareFigures([figures(100)], [figures(121)]).within).toBe(false);
    const shares = compareFigures([figures(100, 100)], [figures(100, 79)]);
    expect(shares.rows.find((row) => row.figure === 'results ≤ 1 s (%)')?.within).toBe(false);
    expect(shares.within).toBe(false);
  });

  it('counts a better figure as within, however much better', () => {
    const verdict = compareFigures([figures(300)], [figures(60)]);
    expect(verdict.within).toBe(true);
  });
});
