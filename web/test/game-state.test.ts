import {
  applyGameEvent,
  canVote,
  resultRowsOf,
  roundMessageOf,
  screenOf,
  toastsOf,
  tournamentToastOf,
  type GameEvent,
  type LiveGameView,
} from '../src/features/game/state';

const images = [0, 1, 2, 3].map((m) => ({
  id: `round-2-image-${m}`,
  url: `/images/sample-${m}.svg`,
  alt: `Sample ${m}`,
}));

function game(overrides: Partial<LiveGameView> = {}): LiveGameView {
  return {
    tournamentId: 't1',
    gameId: 'g1',
    phase: 'voting',
    roundNumber: 2,
    totalRounds: 17,
    roundTimeSeconds: 5,
    images,
    phaseEndsAt: '2026-11-23T21:00:05.000Z',
    serverTime: '2026-11-23T21:00:00.000Z',
    timeRemaining: 5,
    totalVotes: 0,
    participantCount: 4,
    offlineParticipantCount: 1,
    remainingCount: 4,
    results: [],
    advertisement: null,
    winner: null,
    player: {
      isParticipant: true,
      isEliminated: false,
      eliminatedInRound: 0,
      isOfflinePlayer: false,
      voteImageId: null,
      disqualificationReason: null,
    },
    ...overrides,
  };
}

const base = { tournamentId: 't1', gameId: 'g1', occurredAt: '2026-11-23T21:00:00.000Z' };

describe('the live game reducer', () => {
  it('starts from a snapshot and ignores events before one', () => {
    const vote: GameEvent = { __typename: 'VoteTotal', ...base, roundNumber: 2, totalVotes: 3 };
    expect(applyGameEvent(undefined, vote)).toBeUndefined();
    const snapshot = game({ phase: 'results' });
    expect(applyGameEvent(undefined, { __typename: 'GameSnapshot', ...base, game: snapshot })).toBe(
      snapshot,
    );
  });

  it('a round start sets voting and clears the votes and the own vote', () => {
    const before = game({
      phase: 'advertisement',
      totalVotes: 3,
      player: { ...game().player!, voteImageId: 'x' },
    });
    const after = applyGameEvent(before, {
      __typename: 'RoundVotingStarted',
      ...base,
      roundNumber: 3,
      images,
      roundTimeSeconds: 5,
      phaseEndsAt: '2026-11-23T21:00:10.000Z',
      timeRemaining: 5,
      remainingCount: 3,
      offlineRemainingCount: 0,
    })!;
    expect([after.phase, after.roundNumber, after.totalVotes, after.player?.voteImageId]).toEqual([
      'voting',
      3,
      0,
      null,
    ]);
  });

  it('voting end → voting_ended, results → results with counts, ad → advertisement, end → finished', () => {
    let state = applyGameEvent(game(), {
      __typename: 'VotingEnded',
      ...base,
      roundNumber: 2,
      totalVotes: 4,
    })!;
    expect([state.phase, state.totalVotes]).toEqual(['voting_ended', 4]);
    const results = images.map((image, i) => ({
      imageId: image.id,
      votes: i,
      percentage: i * 10,
      isWinner: i === 1,
    }));
    state = applyGameEvent(state, {
      __typename: 'RoundResults',
      ...base,
      roundNumber: 2,
      results,
      totalVotes: 6,
      winningImageIds: [images[1]!.id],
      eliminatedCount: 3,
      remainingCount: 1,
      durationSeconds: 5,
      phaseEndsAt: null,
    })!;
    expect([state.phase, state.results, state.remainingCount]).toEqual(['results', results, 1]);
    state = applyGameEvent(state, {
      __typename: 'AdvertisementStarted',
      ...base,
      position: 'between_rounds',
      advertisement: null,
      durationSeconds: 5,
      phaseEndsAt: null,
      afterRoundNumber: 2,
    })!;
    expect(state.phase).toBe('advertisement');
    const winner = { username: 'ann', userId: 'u1', displayName: 'Ann', prize: '$5' };
    state = applyGameEvent(state, {
      __typename: 'GameEnded',
      ...base,
      winner,
      roundsPlayed: 2,
      decidedBy: 'last_standing',
    })!;
    expect([state.phase, state.winner]).toEqual(['finished', winner]);
  });

  it('marks the player eliminated when the own vote did not win the round', () => {
    const voted = game({ player: { ...game().player!, voteImageId: images[0]!.id } });
    const after = applyGameEvent(voted, {
      __typename: 'RoundResults',
      ...base,
      roundNumber: 2,
      results: [],
      totalVotes: 1,
      winningImageIds: [images[1]!.id],
      eliminatedCount: 1,
      remainingCount: 3,
      durationSeconds: 5,
      phaseEndsAt: null,
    })!;
    expect([after.player?.isEliminated, after.player?.eliminatedInRound]).toEqual([true, 2]);
  });

  it('maps phases to screens as spec §4 does', () => {
    expect(
      (['waiting', 'voting', 'voting_ended', 'advertisement', 'results', 'finished'] as const).map(
        screenOf,
      ),
    ).toEqual(['lobby', 'game', 'game', 'advertisement', 'results', 'winner']);
  });
});

describe('the round results', () => {
  it('gives each image its votes, whole percentage and ADVANCED or ELIMINATED, marking the own vote', () => {
    const results = [
      { imageId: images[0]!.id, votes: 2, percentage: 67, isWinner: false },
      { imageId: images[1]!.id, votes: 1, percentage: 33, isWinner: true },
    ];
    const rows = resultRowsOf(images, results, images[1]!.id);
    expect(rows.map((r) => [r.option, r.votes, r.percentage, r.outcome, r.isOwnVote])).toEqual([
      [1, 2, 67, 'ELIMINATED', false],
      [2, 1, 33, 'ADVANCED', true],
      [3, 0, 0, 'ELIMINATED', false],
      [4, 0, 0, 'ELIMINATED', false],
    ]);
  });
});

describe('the round messages and who may vote', () => {
  const live = { loggedIn: true, mode: 'live' as const };
  it('tells a visitor to log in and never lets them vote', () => {
    const visitor = { loggedIn: false, mode: 'live' as const };
    expect(roundMessageOf(game({ player: null }), visitor, 3_000)).toBe(
      'Login required to participate - you can only watch',
    );
    expect(canVote(game({ player: null }), visitor, 3_000)).toBe(false);
  });
  it('locks a cast choice in', () => {
    const voted = game({ player: { ...game().player!, voteImageId: images[0]!.id } });
    expect(roundMessageOf(voted, live, 3_000)).toBe('Choice locked in - waiting for other players');
    expect(canVote(voted, live, 3_000)).toBe(false);
  });
  it('auto-plays a pre-registered player', () => {
    const offline = game({ player: { ...game().player!, isOfflinePlayer: true } });
    expect(roundMessageOf(offline, live, 3_000)).toBe(
      'Pre-registered choice active - auto-playing',
    );
    expect(canVote(offline, live, 3_000)).toBe(false);
  });
  it("says time's up when the clock reaches 0 without a choice", () => {
    expect(roundMessageOf(game(), live, 0)).toBe("Time's up! You missed this round");
    expect(canVote(game(), live, 0)).toBe(false);
    expect(canVote(game(), live, 2_000)).toBe(true);
  });
  it('gives watch mode no selection', () => {
    expect(canVote(game(), { loggedIn: true, mode: 'watch' }, 2_000)).toBe(false);
  });
});

describe('the game toasts (spec §8 durations)', () => {
  it.each<[GameEvent, string, number]>([
    [
      {
        __typename: 'GameStarted',
        ...base,
        participantCount: 2,
        offlineParticipantCount: 0,
        totalRounds: 17,
        roundTimeSeconds: 5,
      },
      'Game Started',
      3_000,
    ],
    [
      {
        __typename: 'AdvertisementStarted',
        ...base,
        position: 'between_rounds',
        advertisement: null,
        durationSeconds: 5,
        phaseEndsAt: null,
        afterRoundNumber: 1,
      },
      'Advertisement',
      2_000,
    ],
    [
      {
        __typename: 'RoundCompleted',
        ...base,
        roundNumber: 4,
        eliminatedCount: 2,
        remainingCount: 3,
      },
      'Round 4 Complete',
      4_000,
    ],
  ])('%#: %s', (event, title, durationMs) => {
    expect(toastsOf(event)).toEqual([expect.objectContaining({ title, durationMs })]);
  });

  const ended = (winner: Extract<GameEvent, { __typename: 'GameEnded' }>['winner']): GameEvent => ({
    __typename: 'GameEnded',
    ...base,
    winner,
    roundsPlayed: 17,
    decidedBy: winner ? 'last_standing' : 'no_winner',
  });

  it('ends the game with Game Complete (5 s), Winner Announced (8 s) and Game Finished (5 s), in that order', () => {
    const winner = { username: 'alice', userId: 'u-alice', displayName: 'Alice', prize: '$10' };
    expect(toastsOf(ended(winner))).toEqual([
      { title: 'Game Complete', durationMs: 5_000 },
      { title: 'Winner Announced', description: 'alice', durationMs: 8_000 },
      { title: 'Game Finished', description: 'alice', durationMs: 5_000 },
    ]);
  });

  it('announces no winner when nobody won, and finishes the game for Anonymous', () => {
    expect(toastsOf(ended(null))).toEqual([
      { title: 'Game Complete', durationMs: 5_000 },
      { title: 'Game Finished', description: 'Anonymous', durationMs: 5_000 },
    ]);
  });

  it('shows Tournament Started (5 s) when the tournament goes live and Tournament Finished (5 s) when it ends', () => {
    expect(tournamentToastOf('live')).toEqual({ title: 'Tournament Started', durationMs: 5_000 });
    expect(tournamentToastOf('finished')).toEqual({
      title: 'Tournament Finished',
      durationMs: 5_000,
    });
    expect(tournamentToastOf('updated')).toBeUndefined();
  });
});
