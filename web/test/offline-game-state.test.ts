// Issue 39, points 1, 3 and 4: the game as an offline player sees it (their pre-selected pick is
// their vote, and what they advance or go out by), the last round's states, a late arrival, and
// event types this tab does not know.
import {
  applyGameEvent,
  isFinalRound,
  joinedLate,
  offlinePicksOf,
  roundMessageOf,
  toastsOf,
  withOwnPick,
  type GameEvent,
  type LiveGameView,
  type OfflinePicks,
} from '../src/features/game/state';

const base = { tournamentId: 't1', gameId: 'g1', occurredAt: '2026-11-23T21:00:00.000Z' };

const imagesOf = (round: number) =>
  [0, 1, 2, 3].map((m) => ({
    id: `round-${round}-image-${m}`,
    url: `/images/sample-${m}.svg`,
    alt: `Sample ${m}`,
  }));

/** The player who pre-registered: in, offline, no vote of their own. */
const offlinePlayer = {
  isParticipant: true,
  isEliminated: false,
  eliminatedInRound: 0,
  isOfflinePlayer: true,
  voteImageId: null,
  disqualificationReason: null,
};

function game(overrides: Partial<LiveGameView> = {}): LiveGameView {
  return {
    tournamentId: 't1',
    gameId: 'g1',
    phase: 'waiting',
    roundNumber: 0,
    totalRounds: 17,
    roundTimeSeconds: 5,
    images: [],
    phaseEndsAt: null,
    serverTime: '2026-11-23T21:00:00.000Z',
    timeRemaining: 0,
    totalVotes: 0,
    participantCount: 3,
    offlineParticipantCount: 1,
    remainingCount: 3,
    results: [],
    advertisement: null,
    winner: null,
    player: offlinePlayer,
    ...overrides,
  };
}

const roundStarts = (round: number, remainingCount = 3): GameEvent => ({
  __typename: 'RoundVotingStarted',
  ...base,
  roundNumber: round,
  images: imagesOf(round),
  roundTimeSeconds: 5,
  phaseEndsAt: '2026-11-23T21:00:05.000Z',
  timeRemaining: 5,
  remainingCount,
  offlineRemainingCount: 1,
});

/** Round N's results, `winning` the winning positions, `remainingCount` who is still in. */
const resultsOf = (round: number, winning: number[], remainingCount: number): GameEvent => ({
  __typename: 'RoundResults',
  ...base,
  roundNumber: round,
  results: imagesOf(round).map((image, position) => ({
    imageId: image.id,
    votes: 1,
    percentage: 25,
    isWinner: winning.includes(position),
  })),
  totalVotes: 4,
  winningImageIds: winning.map((position) => `round-${round}-image-${position}`),
  eliminatedCount: 0,
  remainingCount,
  durationSeconds: 5,
  phaseEndsAt: null,
});

/** Picks round 1 → position 2, round 2 → 0, round 3 → 3 (as `offlineChoices` answers). */
const picks: OfflinePicks = offlinePicksOf([
  { roundNumber: 2, selectedImageId: '0' },
  { roundNumber: 1, selectedImageId: '2' },
  { roundNumber: 3, selectedImageId: '3' },
]);

/** The events applied in order; `known` the picks this tab has read (none: not yet). */
function play(
  events: GameEvent[],
  from: LiveGameView = game(),
  known: { picks?: OfflinePicks } = { picks },
): LiveGameView {
  return events.reduce<LiveGameView>(
    (state, event) => applyGameEvent(state, event, known.picks)!,
    from,
  );
}

describe("an offline player's game", () => {
  it("shows the pre-selected pick as the player's vote in each round", () => {
    let state = play([roundStarts(1)]);
    expect(state.player?.voteImageId).toBe('round-1-image-2');
    state = play([resultsOf(1, [2], 2), roundStarts(2)], state);
    expect(state.player?.voteImageId).toBe('round-2-image-0');
    state = play([resultsOf(2, [0], 2), roundStarts(3)], state);
    expect(state.player?.voteImageId).toBe('round-3-image-3');
  });

  it('advances while the pick wins: never ELIMINATED, and the win has no elimination round', () => {
    const state = play([
      roundStarts(1),
      resultsOf(1, [2], 2),
      roundStarts(2, 2),
      resultsOf(2, [0], 1),
      {
        __typename: 'GameEnded',
        ...base,
        winner: { userId: 'u-off', username: 'olive', displayName: 'Olive', prize: '$5' },
        roundsPlayed: 2,
        decidedBy: 'last_standing',
      },
    ]);
    expect([state.phase, state.player?.isEliminated, state.player?.eliminatedInRound]).toEqual([
      'finished',
      false,
      0,
    ]);
  });

  it('goes out in the round whose results the pick lost, and plays no pick after it', () => {
    const state = play([
      roundStarts(1),
      resultsOf(1, [2], 2),
      roundStarts(2),
      resultsOf(2, [1], 2),
      roundStarts(3, 2),
    ]);
    expect([state.player?.isEliminated, state.player?.eliminatedInRound]).toEqual([true, 2]);
    expect(state.player?.voteImageId).toBeNull();
  });

  it('is never shown out by a round whose pick this tab does not know yet', () => {
    const state = play([roundStarts(1), resultsOf(1, [3], 2)], game(), {});
    expect(state.player?.isEliminated).toBe(false);
  });

  it("shows the pick once the choices arrive after the round's start, and keeps the server's own vote", () => {
    const started = play([roundStarts(1)], game(), {});
    expect(started.player?.voteImageId).toBeNull();
    expect(withOwnPick(started, picks).player?.voteImageId).toBe('round-1-image-2');
    // The snapshot's vote (what the engine cast) wins over the picks.
    const snapshot = game({
      phase: 'voting',
      roundNumber: 1,
      player: { ...offlinePlayer, voteImageId: 'round-1-image-1' },
    });
    expect(withOwnPick(snapshot, picks).player?.voteImageId).toBe('round-1-image-1');
  });

  it("takes the server's word from a snapshot: out in round 1 stays out", () => {
    const snapshot: GameEvent = {
      __typename: 'GameSnapshot',
      ...base,
      game: game({
        phase: 'results',
        roundNumber: 2,
        player: { ...offlinePlayer, isEliminated: true, eliminatedInRound: 1 },
      }),
    };
    const state = play([snapshot, roundStarts(3)]);
    expect([state.player?.isEliminated, state.player?.eliminatedInRound]).toEqual([true, 1]);
    expect(state.player?.voteImageId).toBeNull();
  });

  it("leaves a live player's rounds as they were: no vote is no pick", () => {
    const live = game({ player: { ...offlinePlayer, isOfflinePlayer: false } });
    const state = play([roundStarts(1), resultsOf(1, [2], 2)], live);
    expect([state.player?.voteImageId, state.player?.isEliminated]).toEqual([null, true]);
  });
});

describe('event types this tab does not know (spec §7: ignored)', () => {
  // A newer server's event: only the interface's fields are selected by the tab's query.
  const unknown = { __typename: 'RoundExtended', ...base } as unknown as GameEvent;

  it('leave the game state as it was', () => {
    const before = game({ phase: 'voting', roundNumber: 4 });
    expect(applyGameEvent(before, unknown)).toBe(before);
    expect(applyGameEvent(before, unknown, picks)).toBe(before);
  });

  it('announce no toast', () => {
    expect(toastsOf(unknown)).toEqual([]);
  });
});

describe('the final round', () => {
  it('is round 17, or a round that left one player or none', () => {
    expect(isFinalRound({ roundNumber: 17, totalRounds: 17, remainingCount: 5 })).toBe(true);
    expect(isFinalRound({ roundNumber: 3, totalRounds: 17, remainingCount: 1 })).toBe(true);
    expect(isFinalRound({ roundNumber: 3, totalRounds: 17, remainingCount: 0 })).toBe(true);
    expect(isFinalRound({ roundNumber: 3, totalRounds: 17, remainingCount: 2 })).toBe(false);
    // Before round 1 (the before-game ad), even alone.
    expect(isFinalRound({ roundNumber: 0, totalRounds: 17, remainingCount: 1 })).toBe(false);
  });
});

describe('a signed-in player who arrives after round 1', () => {
  const live = { loggedIn: true, mode: 'live' as const };
  const newcomer = { ...offlinePlayer, isParticipant: false, isOfflinePlayer: false };

  it('is told they joined after round 1 and can watch, instead of missing the round', () => {
    const round3 = game({ phase: 'voting', roundNumber: 3, player: newcomer });
    expect(joinedLate(round3, live)).toBe(true);
    expect(roundMessageOf(round3, live, 0)).toBe('You joined after round 1 — you can watch');
    expect(roundMessageOf(round3, live, 3_000)).toBe('You joined after round 1 — you can watch');
  });

  it("is late once round 1's voting is over, not while it is open nor before the game", () => {
    expect(joinedLate(game({ phase: 'voting', roundNumber: 1, player: newcomer }), live)).toBe(
      false,
    );
    expect(joinedLate(game({ phase: 'results', roundNumber: 1, player: newcomer }), live)).toBe(
      true,
    );
    expect(joinedLate(game({ phase: 'waiting', player: newcomer }), live)).toBe(false);
  });

  it('is not a participant, a watcher or a visitor', () => {
    const round3 = game({ phase: 'voting', roundNumber: 3 });
    expect(joinedLate(round3, live)).toBe(false);
    const stranger = game({ phase: 'voting', roundNumber: 3, player: newcomer });
    expect(joinedLate(stranger, { loggedIn: true, mode: 'watch' })).toBe(false);
    expect(joinedLate(game({ phase: 'voting', roundNumber: 3, player: null }), live)).toBe(true);
    expect(joinedLate(stranger, { loggedIn: false, mode: 'live' })).toBe(false);
  });
});
