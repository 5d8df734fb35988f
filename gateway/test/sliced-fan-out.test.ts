import { SlicedFanOut } from '../src/realtime/sliced-fan-out';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SlicedFanOut: one broadcast to many sockets, a slice per turn of the event loop', () => {
  it('serves a small audience at once, synchronously', () => {
    const got: number[] = [];
    const fanOut = new SlicedFanOut<number>(10, (error) => {
      throw error;
    });

    fanOut.push([1, 2, 3], (target) => got.push(target));

    expect(got).toEqual([1, 2, 3]);
    expect(fanOut.queued).toBe(0);
  });

  it('lets other work run between slices of a large broadcast', async () => {
    const log: string[] = [];
    const fanOut = new SlicedFanOut<number>(2, (error) => {
      throw error;
    });

    fanOut.push([1, 2, 3, 4, 5], (target) => log.push(`send ${target}`));
    setImmediate(() => log.push('a vote'));
    while (fanOut.queued > 0) await nextTurn();

    expect(log.slice(0, 2)).toEqual(['send 1', 'send 2']);
    expect(log.indexOf('a vote')).toBeGreaterThan(1);
    expect(log.indexOf('a vote')).toBeLessThan(log.indexOf('send 5'));
    expect(log.filter((entry) => entry.startsWith('send'))).toHaveLength(5);
  });

  it('keeps the order of broadcasts: each reaches all its targets before the next starts', async () => {
    const got: string[] = [];
    const fanOut = new SlicedFanOut<number>(2, (error) => {
      throw error;
    });

    fanOut.push([1, 2, 3], (target) => got.push(`a${target}`));
    fanOut.push([1, 2, 3], (target) => got.push(`b${target}`));
    while (fanOut.queued > 0) await nextTurn();

    expect(got).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
  });

  it('reports a delivery that throws and goes on with the rest', () => {
    const errors: unknown[] = [];
    const got: number[] = [];
    const fanOut = new SlicedFanOut<number>(10, (error) => errors.push(error));

    fanOut.push([1, 2, 3], (target) => {
      if (target === 2) throw new Error('socket gone');
      got.push(target);
    });

    expect(got).toEqual([1, 3]);
    expect(errors).toEqual([new Error('socket gone')]);
  });

  it('drops what is queued on clear (the endpoint closes)', async () => {
    const got: number[] = [];
    const fanOut = new SlicedFanOut<number>(1, (error) => {
      throw error;
    });

    fanOut.push([1, 2, 3], (target) => got.push(target));
    fanOut.clear();
    await nextTurn();
    await nextTurn();

    expect(got).toEqual([1]);
    fanOut.push([4], (target) => got.push(target));
    expect(got).toEqual([1, 4]);
  });
});
