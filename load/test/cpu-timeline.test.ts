import { cpuTimeline, lineUp, parsePerfStat, timelineTable } from '../driver/cpu-timeline';

// The shape of `perf stat -I 10 -e task-clock -x , --per-thread -p …` (perf 6.1).
const perfOutput = `# started on Tue Nov 24 14:30:33 2026

     0.010121177,node-3834,0.45,msec,task-clock,454824,100.00,0.045,CPUs utilized
     0.010121177,C1 CompilerThre-3790,1.25,msec,task-clock,1250000,100.00,0.125,CPUs utilized
     0.010121177,libuv-worker-3841,<not counted>,msec,task-clock,0,100.00,,
     0.020250001,node-3834,6.00,msec,task-clock,6000000,100.00,0.600,CPUs utilized
     0.020250001,node-3838,9.50,msec,task-clock,9500000,100.00,0.950,CPUs utilized
     0.030380002,node-3838,8.00,msec,task-clock,8000000,100.00,0.800,CPUs utilized
     0.030380002,node-4444,2.00,msec,task-clock,2000000,100.00,0.200,CPUs utilized
     0.050380002,node-3838,30.00,msec,task-clock,30000000,100.00,1.500,CPUs utilized
`;

describe('the CPU timeline of a close', () => {
  it("reads perf's per-thread intervals, the tid after the last dash, uncounted as 0 ms", () => {
    const intervals = parsePerfStat(perfOutput);
    expect(intervals).toHaveLength(8);
    expect(intervals[1]).toEqual({ endMs: 10.121177, tid: 3790, cpuMs: 1.25 });
    expect(intervals[2]).toEqual({ endMs: 10.121177, tid: 3841, cpuMs: 0 });
  });

  it('sums the threads per process in bins lined up with the close', () => {
    const timeline = cpuTimeline(parsePerfStat(perfOutput), {
      // perf started 1,000 ms after the epoch; the close came 15 ms later.
      startedAt: 1_000,
      origin: 1_015,
      processOf: new Map([
        [3834, 3834],
        [3790, 3700],
        [3838, 3838],
      ]),
      names: new Map([
        [3834, 'game-engine'],
        [3700, 'java'],
        [3838, 'gateway'],
      ]),
      fromMs: -10,
      toMs: 40,
    });
    // The intervals end 10.1, 20.3, 30.4 and 50.4 ms after perf started: their middles are
    // -9.9, 0.2, 10.3 and 25.4 ms after the close, in the bins -10, 0, 10 and 20. The last one
    // is 20 ms long (perf's timer was late) and the bin of 30 gets none.
    expect(timeline.rows.map((row) => row.fromMs)).toEqual([-10, 0, 10, 20, 30]);
    expect(timeline.rows[0]!.cpuMs).toEqual({ 'game-engine': 0.45, java: 1.25 });
    expect(timeline.rows[1]!.cpuMs).toEqual({ 'game-engine': 6, gateway: 9.5 });
    // A thread started after perf did is not in the map: it is counted, as 'other'.
    expect(timeline.rows[2]!.cpuMs).toEqual({ gateway: 8, other: 2 });
    expect(timeline.rows[3]!.cpuMs).toEqual({ gateway: 30 });
    expect(timeline.rows[4]!.cpuMs).toEqual({});
    // The cores busy are the CPU over the intervals' own length.
    expect(timeline.rows[1]!.cores).toBeCloseTo(15.5 / 10.128824);
    expect(timeline.rows[3]!.cores).toBeCloseTo(1.5);
    expect(timeline.rows[4]!.cores).toBeNull();
    expect(timeline.names).toEqual(['gateway', 'game-engine', 'other', 'java']);

    const table = timelineTable(timeline, '### close');
    expect(table).toContain(
      '| ms after the close | cores busy | gateway | game-engine | other | java |',
    );
    expect(table).toContain('| 0 → 10 | 1.53 | 9.5 | 6.0 | 0.0 | 0.0 |');
    expect(table).toContain('| 30 → 40 | — | 0.0 | 0.0 | 0.0 | 0.0 |');
    expect(table).toContain('| **CPU ms in all** | 57.2 | 47.5 | 6.5 | 2.0 | 1.3 |');
  });

  it("lines perf's clock up with the burst of CPU the recorder made at a known time", () => {
    // perf started at 5,000 (epoch ms); intervals of 10 ms. Thread 100 was busy from 5,200 to
    // 5,240, a little idle before and after; thread 200 was busy all along.
    const intervals = Array.from({ length: 40 }, (_, index) => (index + 1) * 10).flatMap(
      (endMs) => [
        { endMs, tid: 100, cpuMs: endMs > 200 && endMs <= 240 ? 9.5 : 0.2 },
        { endMs, tid: 200, cpuMs: 10 },
      ],
    );
    const burst = { from: 5_200, to: 5_240 };
    // The file's first line put the start 25 ms too early; the burst corrects it to within 1 ms.
    expect(lineUp(intervals, 100, burst, 4_975)).toBeCloseTo(5_000, -0.5);
    expect(lineUp(intervals, 100, burst, 5_030)).toBeCloseTo(5_000, -0.5);
    // No burst on that thread near where the rough start puts it: the rough start stays.
    expect(lineUp(intervals, 999, burst, 4_975)).toBe(4_975);
  });
});
