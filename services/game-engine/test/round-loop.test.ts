import fc from 'fast-check';
import { VOTES_CLOSING } from '@underdog/live-game';
import {
  freshMemory,
  nextStep,
  votesSettled,
  votesWaitWarnings,
  type LoopGame,
  type LoopMemory,
} from '../src/domain/round-loop';

const timings = { graceMs: 1_000, voteTotalEveryMs: 1_000 };
const T = 1_000_000;

const game = (over: Partial<LoopGame>): LoopGame => ({
  phase: 'waiting',
  round: 0,
  totalRounds: 17,
  phaseEndsAt: 0,
  votingEndsAt: 0,
  totalVotes: 0,
  votesEndOffset: '',
  decidedBy: '',
  adPosition: '',
  ...over,
});
const cast = (round: number, over: Partial<LoopMemory> = {}): LoopMemory => ({
  ...freshMemory(),
  offlineCastRound: round,
  ...over,
});

describe('nextStep: the round loop decided from the state and the time', () => {
  const table: [
    string,
    LoopGame,
    LoopMemory,
    number,
    ReturnType<typeof nextStep>['actions'],
    number,
  ][] = [
    ['waiting: the game begins', game({}), freshMemory(), T, [{ kind: 'begin' }], 0],
    [
      'voting, taken over: the offline choices cast and the round announced first, then the total',
      game({ phase: 'voting', round: 3, votingEndsAt: T + 5_000, totalVotes: 7 }),
      freshMemory(),
      T,
      [
        { kind: 'castOffline', round: 3, announce: true },
        { kind: 'publishVoteTotal', round: 3, totalVotes: 7 },
      ],
      1_000,
    ],
    [
      'voting, announced by this runner, its offline choices not marked cast: cast, not announced again',
      game({ phase: 'voting', round: 3, votingEndsAt: T + 5_000, totalVotes: 7 }),
      { ...freshMemory(), announcedRound: 3, lastTotalSent: 7, lastTotalAt: T - 200 },
      T,
      [{ kind: 'castOffline', round: 3, announce: false }],
      1_000,
    ],
    [
      'voting, total unchanged: waits to the deadline or the next total, whichever first',
      game({ phase: 'voting', round: 3, votingEndsAt: T + 400, totalVotes: 7 }),
      cast(3, { lastTotalSent: 7, lastTotalAt: T - 2_000 }),
      T,
      [],
      400,
    ],
    [
      'voting, a total sent less than a second ago: not sent again yet',
      game({ phase: 'voting', round: 3, votingEndsAt: T + 5_000, totalVotes: 9 }),
      cast(3, { lastTotalSent: 7, lastTotalAt: T - 999 }),
      T,
      [],
      1_000,
    ],
    [
      'voting, at the deadline: closed, the grace to the stored deadline + 1 s',
      game({ phase: 'voting', round: 3, votingEndsAt: T, totalVotes: 9 }),
      cast(3),
      T,
      [{ kind: 'closeVoting', round: 3, phaseEndsAt: T + 1_000 }],
      0,
    ],
    [
      'voting, taken over after the deadline: cast (not announced), then closed at the stored deadline',
      game({ phase: 'voting', round: 2, votingEndsAt: T - 3_000 }),
      cast(1),
      T,
      [
        { kind: 'castOffline', round: 2, announce: false },
        { kind: 'closeVoting', round: 2, phaseEndsAt: T - 2_000 },
      ],
      0,
    ],
    [
      'grace running: waits for its end',
      game({ phase: 'voting_ended', round: 2, phaseEndsAt: T + 300 }),
      cast(2),
      T,
      [],
      300,
    ],
    [
      'grace over: closing marked, votes captured',
      game({ phase: 'voting_ended', round: 2, phaseEndsAt: T }),
      cast(2),
      T,
      [{ kind: 'captureVotes', round: 2, markClosing: true, hold: undefined }],
      0,
    ],
    [
      "grace over, this runner holding the round's close: what it found before goes with the capture",
      game({ phase: 'voting_ended', round: 2, phaseEndsAt: T - 500 }),
      {
        ...cast(2),
        closeHold: { round: 2, since: T - 400, unwritableAt: T - 300, leaderless: [0] },
      },
      T,
      [
        {
          kind: 'captureVotes',
          round: 2,
          markClosing: true,
          hold: { round: 2, since: T - 400, unwritableAt: T - 300, leaderless: [0] },
        },
      ],
      0,
    ],
    [
      'closing marked by a runner that died: captured without marking again',
      game({ phase: 'voting_ended', round: 2, phaseEndsAt: T - 5, votesEndOffset: VOTES_CLOSING }),
      cast(2),
      T,
      [{ kind: 'captureVotes', round: 2, markClosing: false, hold: undefined }],
      0,
    ],
    [
      'captured: the applied mark awaited, the wait counted from now',
      game({ phase: 'voting_ended', round: 2, phaseEndsAt: T - 5, votesEndOffset: '4:120' }),
      cast(2),
      T,
      [{ kind: 'awaitVotes', round: 2, ends: [{ partition: 4, end: 120n }], waitedMs: 0 }],
      0,
    ],
    [
      'tallying (a takeover between the capture and the tally): tallied',
      game({ phase: 'tallying', round: 5 }),
      freshMemory(),
      T,
      [{ kind: 'tally', round: 5 }],
      0,
    ],
    [
      'results showing: waits',
      game({ phase: 'results', round: 5, phaseEndsAt: T + 10_000 }),
      cast(5),
      T,
      [],
      10_000,
    ],
    [
      'results shown, rounds left: the next round (or an ad)',
      game({ phase: 'results', round: 5, phaseEndsAt: T }),
      cast(5),
      T,
      [{ kind: 'endResults', round: 5, ended: false }],
      0,
    ],
    [
      'results shown, a winner decided: the end',
      game({ phase: 'results', round: 5, phaseEndsAt: T, decidedBy: 'single_survivor' }),
      cast(5),
      T,
      [{ kind: 'endResults', round: 5, ended: true }],
      0,
    ],
    [
      'results of the last round shown: the end',
      game({ phase: 'results', round: 17, phaseEndsAt: T - 1 }),
      cast(17),
      T,
      [{ kind: 'endResults', round: 17, ended: true }],
      0,
    ],
    [
      'an ad between rounds showing: waits',
      game({ phase: 'advertisement', round: 5, phaseEndsAt: T + 1, adPosition: 'between_rounds' }),
      cast(5),
      T,
      [],
      1,
    ],
    [
      'an ad between rounds shown: the next round',
      game({ phase: 'advertisement', round: 5, phaseEndsAt: T, adPosition: 'between_rounds' }),
      cast(5),
      T,
      [{ kind: 'endAdvertisement', round: 5, finishing: false }],
      0,
    ],
    [
      'the after-game ad shown: the end',
      game({ phase: 'advertisement', round: 9, phaseEndsAt: T, adPosition: 'after_game' }),
      cast(9),
      T,
      [{ kind: 'endAdvertisement', round: 9, finishing: true }],
      0,
    ],
    [
      'finished (also a takeover of an end not announced): the end made',
      game({ phase: 'finished', round: 9 }),
      freshMemory(),
      T,
      [{ kind: 'finish' }],
      0,
    ],
  ];

  it.each(table)('%s', (_name, state, memory, now, actions, wakeInMs) => {
    const step = nextStep({ game: state, memory }, now, timings);
    expect(step.actions).toEqual(actions);
    expect(step.wakeInMs).toBe(wakeInMs);
  });

  it('remembers the total it publishes, and when', () => {
    const step = nextStep(
      {
        game: game({ phase: 'voting', round: 1, votingEndsAt: T + 9_000, totalVotes: 4 }),
        memory: cast(1),
      },
      T,
      timings,
    );
    expect(step.memory).toEqual({ ...cast(1), lastTotalSent: 4, lastTotalAt: T });
  });

  it("counts the votes' wait from when this runner first found them lagging", () => {
    const lagging = game({
      phase: 'voting_ended',
      round: 2,
      phaseEndsAt: T - 5,
      votesEndOffset: '0:9',
    });
    const first = nextStep({ game: lagging, memory: cast(2) }, T, timings);
    const later = nextStep({ game: lagging, memory: first.memory }, T + 4_000, timings);
    expect(later.actions).toEqual([
      { kind: 'awaitVotes', round: 2, ends: [{ partition: 0, end: 9n }], waitedMs: 4_000 },
    ]);
    // A new round's wait starts afresh.
    const next = nextStep(
      { game: { ...lagging, round: 3 }, memory: later.memory },
      T + 60_000,
      timings,
    );
    expect(next.actions).toEqual([
      { kind: 'awaitVotes', round: 3, ends: [{ partition: 0, end: 9n }], waitedMs: 0 },
    ]);
  });

  it('votesSettled: resolves once applied, and waits for unapplied votes however long it takes', () => {
    expect(votesSettled(9n, { end: 9n })).toBe('resolve');
    expect(votesSettled(10n, { end: 9n })).toBe('resolve');
    expect(votesSettled(8n, { end: 9n })).toBe('wait');
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 2n ** 62n }),
        fc.bigInt({ min: 1n, max: 2n ** 62n }),
        (gap, end) => expect(votesSettled(end - gap, { end })).toBe('wait'),
      ),
    );
  });

  it('warns of a wait for votes now and then: after 5 s, then every 5 s, not at every look', () => {
    expect([0, 4_999, 5_000, 9_999, 10_000, 60_000].map(votesWaitWarnings)).toEqual([
      0, 0, 1, 1, 2, 12,
    ]);
  });

  const phases = [
    'waiting',
    'voting',
    'voting_ended',
    'tallying',
    'results',
    'advertisement',
    'finished',
  ] as const;
  const anyGame = fc.record({
    phase: fc.constantFrom(...phases),
    round: fc.integer({ min: 0, max: 17 }),
    totalRounds: fc.constant(17),
    phaseEndsAt: fc.integer({ min: T - 20_000, max: T + 20_000 }),
    votingEndsAt: fc.integer({ min: T - 20_000, max: T + 20_000 }),
    totalVotes: fc.integer({ min: 0, max: 10_000 }),
    votesEndOffset: fc.constantFrom('', VOTES_CLOSING, '0:0', '3:1234'),
    decidedBy: fc.constantFrom('', 'single_survivor', 'draw'),
    adPosition: fc.constantFrom('', 'before_game', 'between_rounds', 'after_game'),
  });
  const anyMemory = fc.record({
    offlineCastRound: fc.integer({ min: 0, max: 17 }),
    announcedRound: fc.integer({ min: 0, max: 17 }),
    lastTotalSent: fc.integer({ min: -1, max: 10_000 }),
    lastTotalAt: fc.integer({ min: 0, max: T + 20_000 }),
    votesWaitFrom: fc.option(
      fc.record({
        round: fc.integer({ min: 0, max: 17 }),
        at: fc.integer({ min: T - 20_000, max: T }),
      }),
      { nil: undefined },
    ),
    closeHold: fc.option(
      fc.record({
        round: fc.integer({ min: 0, max: 17 }),
        since: fc.integer({ min: T - 20_000, max: T }),
        unwritableAt: fc.option(fc.integer({ min: T - 20_000, max: T }), { nil: undefined }),
        leaderless: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
      }),
      { nil: undefined },
    ),
  });

  it('never acts on a timed phase before its stored deadline, and then wakes at it at the latest', () => {
    fc.assert(
      fc.property(
        anyGame,
        anyMemory,
        fc.integer({ min: T - 20_000, max: T + 20_000 }),
        (g, memory, now) => {
          const step = nextStep({ game: g, memory }, now, timings);
          const timed =
            g.phase === 'voting_ended' || g.phase === 'results' || g.phase === 'advertisement';
          if (timed && now < g.phaseEndsAt) {
            expect(step.actions).toEqual([]);
            expect(step.wakeInMs).toBe(g.phaseEndsAt - now);
          }
          if (g.phase === 'voting' && now < g.votingEndsAt) {
            expect(step.actions.map((a) => a.kind)).not.toContain('closeVoting');
            expect(step.wakeInMs).toBeGreaterThan(0);
            expect(step.wakeInMs).toBeLessThanOrEqual(
              Math.min(g.votingEndsAt - now, timings.voteTotalEveryMs),
            );
          }
          expect(step.wakeInMs).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  it('is deterministic, and makes at most one move of the stored phase per step', () => {
    const moves = new Set([
      'begin',
      'closeVoting',
      'captureVotes',
      'awaitVotes',
      'tally',
      'endResults',
      'endAdvertisement',
      'finish',
    ]);
    fc.assert(
      fc.property(
        anyGame,
        anyMemory,
        fc.integer({ min: T - 20_000, max: T + 20_000 }),
        (g, memory, now) => {
          const step = nextStep({ game: g, memory }, now, timings);
          expect(nextStep({ game: g, memory }, now, timings)).toEqual(step);
          expect(step.actions.filter((a) => moves.has(a.kind)).length).toBeLessThanOrEqual(1);
          // The move is the last action: nothing is done after the game moved on.
          const last = step.actions.at(-1);
          if (step.actions.some((a) => moves.has(a.kind))) expect(moves.has(last!.kind)).toBe(true);
          // The cast and announced rounds are the runner's to set, once the cast or the
          // announcement is made.
          expect(step.memory.offlineCastRound).toBe(memory.offlineCastRound);
          expect(step.memory.announcedRound).toBe(memory.announcedRound);
        },
      ),
    );
  });
});
