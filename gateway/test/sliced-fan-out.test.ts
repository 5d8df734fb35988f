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
  describe('a paced broadcast (the live vote total)', () => {
    const failOnError = (error: unknown) => {
      throw error;
    };
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('goes out in turns a gap apart over about the spread, not in one burst', () => {
      const got: number[] = [];
      const fanOut = new SlicedFanOut<number>(500, failOnError, 50, 10);
      const targets = Array.from({ length: 1000 }, (_, index) => index);

      fanOut.push(targets, (target) => got.push(target), 200);
      expect(got).toHaveLength(50);
      jest.advanceTimersByTime(9);
      expect(got).toHaveLength(50);
      jest.advanceTimersByTime(1);
      expect(got).toHaveLength(100);
      jest.advanceTimersByTime(179);
      expect(got).toHaveLength(950);
      jest.advanceTimersByTime(1);

      expect(got).toEqual(targets);
      expect(fanOut.queued).toBe(0);
    });

    it('lets a vote in between its turns', () => {
      const log: string[] = [];
      const fanOut = new SlicedFanOut<number>(500, failOnError, 50, 10);

      fanOut.push(
        Array.from({ length: 200 }, (_, index) => index),
        (target) => log.push(`send ${target}`),
        200,
      );
      setImmediate(() => log.push('a vote'));
      jest.runAllTimers();

      expect(log.indexOf('a vote')).toBe(50);
      expect(log).toHaveLength(201);
    });

    it('keeps turns within the slice size and the whole within the spread for a large audience', () => {
      const turns: number[] = [];
      const fanOut = new SlicedFanOut<number>(500, failOnError, 50, 10);
      let delivered = 0;

      fanOut.push(
        Array.from({ length: 50_000 }, (_, index) => index),
        () => (delivered += 1),
        200,
      );
      turns.push(delivered);
      for (let ms = 0; ms < 200 && fanOut.queued > 0; ms += 1) {
        jest.advanceTimersByTime(1);
        turns.push(delivered);
      }

      expect(fanOut.queued).toBe(0);
      expect(delivered).toBe(50_000);
      const sizes = turns.map((count, index) => count - (turns[index - 1] ?? 0));
      expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
    });

    it('serves an audience of one turn at once', () => {
      const got: number[] = [];
      const fanOut = new SlicedFanOut<number>(500, failOnError, 50, 10);

      fanOut.push([1, 2, 3], (target) => got.push(target), 200);

      expect(got).toEqual([1, 2, 3]);
      expect(fanOut.queued).toBe(0);
    });

    it('holds the broadcasts pushed after it until it is delivered: order is kept', () => {
      const got: string[] = [];
      const fanOut = new SlicedFanOut<number>(500, failOnError, 1, 10);

      fanOut.push([1, 2, 3], (target) => got.push(`total ${target}`), 30);
      fanOut.push([1, 2, 3], (target) => got.push(`voting ended ${target}`));
      expect(got).toEqual(['total 1']);
      jest.runAllTimers();

      expect(got).toEqual([
        'total 1',
        'total 2',
        'total 3',
        'voting ended 1',
        'voting ended 2',
        'voting ended 3',
      ]);
    });
  });
});
