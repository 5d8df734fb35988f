import {
  allCounted,
  bytesPerPlayer,
  checkVotes,
  countByImage,
  peakRate,
  slowestCommands,
  tallyDifferences,
  votesDueBy,
} from '../driver/round-report';

describe('votesDueBy (the voting window pace)', () => {
  it('spreads the votes evenly over the span and has them all due once it is over', () => {
    expect(votesDueBy(1000, 0, 10_000)).toBe(0);
    expect(votesDueBy(1000, 2_500, 10_000)).toBe(250);
    expect(votesDueBy(1000, 9_999, 10_000)).toBe(999);
    expect(votesDueBy(1000, 10_000, 10_000)).toBe(1000);
    expect(votesDueBy(1000, 60_000, 10_000)).toBe(1000);
  });

  it('has everything due at once for an empty span', () => {
    expect(votesDueBy(7, 1, 0)).toBe(7);
  });
});

describe('checkVotes (every produced vote against a stored copy)', () => {
  const produced = new Map([
    ['p0', 'a'],
    ['p1', 'b'],
    ['p2', 'c'],
  ]);

  it('counts a complete copy as all counted', () => {
    const check = checkVotes(produced, [
      ['p2', 'c'],
      ['p0', 'a'],
      ['p1', 'b'],
    ]);
    expect(check).toEqual({ matched: 3, missing: 0, wrongImage: 0, extra: 0, doubled: 0 });
    expect(allCounted(check, 3)).toBe(true);
  });

  it('finds a lost vote, a doubled one, a wrong image and a stranger', () => {
    const check = checkVotes(produced, [
      ['p0', 'a'],
      ['p0', 'a'],
      ['p1', 'c'],
      ['p9', 'a'],
    ]);
    expect(check).toEqual({ matched: 1, missing: 1, wrongImage: 1, extra: 1, doubled: 1 });
    expect(allCounted(check, 3)).toBe(false);
  });

  it('does not call a copy with one vote doubled and none missing all counted', () => {
    const check = checkVotes(produced, [
      ['p0', 'a'],
      ['p1', 'b'],
      ['p2', 'c'],
      ['p2', 'c'],
    ]);
    expect(check.doubled).toBe(1);
    expect(allCounted(check, 3)).toBe(false);
  });
});

describe('tallies', () => {
  it('counts votes by image and names the images whose counts differ', () => {
    const expected = countByImage(['a', 'b', 'a', 'c']);
    expect([...expected]).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 1],
    ]);
    expect(
      tallyDifferences(
        expected,
        new Map([
          ['a', 2],
          ['b', 1],
          ['c', 1],
        ]),
      ),
    ).toEqual([]);
    expect(
      tallyDifferences(
        expected,
        new Map([
          ['a', 3],
          ['b', 1],
          ['d', 1],
        ]),
      ),
    ).toEqual([
      { imageId: 'a', expected: 2, actual: 3 },
      { imageId: 'c', expected: 1, actual: 0 },
      { imageId: 'd', expected: 0, actual: 1 },
    ]);
  });
});

describe('slowestCommands (SLOWLOG GET)', () => {
  const sha = 'f'.repeat(40);
  const reply = [
    [
      3,
      1_700_000_002,
      1_500,
      ['HSCAN', 'game:{t}:players', '0', 'COUNT', '10000'],
      '127.0.0.1:1',
      '',
    ],
    [2, 1_700_000_001, 62_000, ['EVALSHA', sha, '7', 'game:{t}:state'], '127.0.0.1:1', ''],
    [1, 1_700_000_000, 4_000, ['SSCAN', 'game:{t}:alive', '0'], '127.0.0.1:1', ''],
  ];

  it('orders the entries slowest first, in ms, naming a known script', () => {
    const slowest = slowestCommands(reply, 2, new Map([[sha, 'underdogApplyVotes']]));
    expect(slowest).toEqual([
      { ms: 62, command: 'EVALSHA underdogApplyVotes 7', at: 1_700_000_001 },
      { ms: 4, command: 'SSCAN game:{t}:alive 0', at: 1_700_000_000 },
    ]);
  });

  it('shortens a long argument and leaves an unknown script as its SHA', () => {
    const [slowest] = slowestCommands(reply, 1);
    expect(slowest?.command).toBe(`EVALSHA ${'f'.repeat(24)}… 7`);
  });

  it('reads an unexpected reply as no entries', () => {
    expect(slowestCommands('OK', 5)).toEqual([]);
  });
});

describe('bytesPerPlayer and peakRate', () => {
  it('divides the memory grown by the players', () => {
    expect(bytesPerPlayer(1_000_000, 1_300_000, 1000)).toBe(300);
    expect(bytesPerPlayer(1, 2, 0)).toBe(0);
  });

  it('finds the fastest rise over at least the window', () => {
    const samples: Array<[number, number]> = [
      [0, 0],
      [500, 100],
      [1000, 200],
      [1500, 1200],
      [2000, 2200],
      [3000, 2300],
    ];
    // 200 → 2200 from 1000 ms to 2000 ms: 2,000 votes in one second.
    expect(peakRate(samples, 1000)).toBe(2000);
    expect(peakRate([[0, 0]], 1000)).toBe(0);
  });
});
