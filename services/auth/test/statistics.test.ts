import { withGameOutcome, type GameOutcomeFacts } from '../src/domain/statistics';
import { emptyStatistics } from '../src/domain/user';

const ended = new Date('2030-01-01T12:30:00.000Z');

function outcome(fields: Partial<GameOutcomeFacts> = {}): GameOutcomeFacts {
  return {
    gameId: 'game-1',
    won: false,
    prizeAmount: 0,
    roundsPlayed: 3,
    roundsWon: 2,
    tournamentSize: 40,
    endedAt: ended,
    ...fields,
  };
}

describe('a player statistics after a game', () => {
  it("counts every participant's game, rounds and biggest tournament", () => {
    const after = withGameOutcome(emptyStatistics(), outcome());
    expect(after).toEqual({
      ...emptyStatistics(),
      gamesPlayed: 1,
      roundsWon: 2,
      totalRoundsPlayed: 3,
      biggestTournamentSize: 40,
    });
    const smaller = withGameOutcome(
      after,
      outcome({ tournamentSize: 10, roundsPlayed: 1, roundsWon: 0 }),
    );
    expect(smaller).toMatchObject({
      gamesPlayed: 2,
      totalRoundsPlayed: 4,
      biggestTournamentSize: 40,
    });
  });

  it("adds the winner's win, prize, streak and first win date", () => {
    const won = withGameOutcome(emptyStatistics(), outcome({ won: true, prizeAmount: 5000 }));
    expect(won).toMatchObject({
      wins: 1,
      totalPrizes: 5000,
      currentWinStreak: 1,
      longestWinStreak: 1,
      firstWinDate: ended,
    });
    const later = new Date('2030-02-01T00:00:00.000Z');
    const again = withGameOutcome(won, outcome({ won: true, prizeAmount: 100, endedAt: later }));
    expect(again).toMatchObject({
      wins: 2,
      totalPrizes: 5100,
      currentWinStreak: 2,
      longestWinStreak: 2,
      firstWinDate: ended,
    });
  });

  it('ends the current streak on a game not won and keeps the longest', () => {
    let statistics = emptyStatistics();
    for (const won of [true, true, true, false, true]) {
      statistics = withGameOutcome(statistics, outcome({ won }));
    }
    expect(statistics).toMatchObject({ wins: 4, currentWinStreak: 1, longestWinStreak: 3 });
  });

  it('gives a loser no prize whatever the outcome carries', () => {
    expect(withGameOutcome(emptyStatistics(), outcome({ prizeAmount: 5000 })).totalPrizes).toBe(0);
  });
});
