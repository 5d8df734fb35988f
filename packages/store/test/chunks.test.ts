import { chunksOf, MEMBERS_PER_STEP } from '../src';
import { scanInChunks } from '../src/chunks';

describe('chunksOf', () => {
  it('slices a list into consecutive chunks of at most the size, the last one shorter', () => {
    expect([...chunksOf(['a', 'b', 'c', 'd', 'e'], 2)]).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect([...chunksOf(['a', 'b'], 2)]).toEqual([['a', 'b']]);
    expect([...chunksOf([], 2)]).toEqual([]);
  });

  it('cuts at MEMBERS_PER_STEP by default', () => {
    const ids = Array.from({ length: MEMBERS_PER_STEP + 1 }, (_, n) => String(n));
    expect([...chunksOf(ids)].map((chunk) => chunk.length)).toEqual([MEMBERS_PER_STEP, 1]);
  });

  it('refuses a size below one', () => {
    expect(() => [...chunksOf(['a'], 0)]).toThrow(RangeError);
  });
});

describe('scanInChunks', () => {
  /** A scan answering each cursor with the given step, as Redis would: [next cursor, items]. */
  const steps = (answers: Record<string, [string, string[]]>) => async (cursor: string) =>
    answers[cursor] ?? ['0', []];

  it('follows the cursor until Redis answers 0, yielding each step in order', async () => {
    const chunks: string[][] = [];
    const scan = steps({ '0': ['17', ['ann', 'bob']], '17': ['5', []], '5': ['0', ['cyd']] });
    for await (const chunk of scanInChunks(scan, (member) => member)) chunks.push(chunk);
    expect(chunks).toEqual([['ann', 'bob'], ['cyd']]);
  });

  it('yields a member Redis returns twice (a resize between steps) once', async () => {
    const chunks: string[][] = [];
    const scan = steps({ '0': ['9', ['ann', 'bob', 'ann']], '9': ['0', ['bob', 'cyd']] });
    for await (const chunk of scanInChunks(scan, (member) => member)) chunks.push(chunk);
    expect(chunks).toEqual([['ann', 'bob'], ['cyd']]);
  });

  it('splits a step that returned more than MEMBERS_PER_STEP (COUNT is a hint)', async () => {
    const many = Array.from({ length: MEMBERS_PER_STEP + 5 }, (_, n) => `user:${n}`);
    const sizes: number[] = [];
    const scan = steps({ '0': ['0', many] });
    for await (const chunk of scanInChunks(scan, (member) => member)) sizes.push(chunk.length);
    expect(sizes).toEqual([MEMBERS_PER_STEP, 5]);
  });
});
