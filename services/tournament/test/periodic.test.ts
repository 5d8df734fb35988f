import { periodicComponent } from '../src/application/periodic';

/** A pass the test finishes by hand, counting how many began. */
function passes() {
  const finishers: Array<() => void> = [];
  let started = 0;
  return {
    started: () => started,
    finish: () => finishers.shift()?.(),
    pass: () => {
      started += 1;
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
  };
}

describe('periodicComponent', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs a pass at start, the next an interval after it ended, never two at once', async () => {
    const runs = passes();
    const component = periodicComponent({ name: 'sweep', intervalMs: 1_000, pass: runs.pass });
    await component.start?.();
    expect(runs.started()).toBe(1);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs.started()).toBe(1);
    runs.finish();
    await jest.advanceTimersByTimeAsync(999);
    expect(runs.started()).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs.started()).toBe(2);
    runs.finish();
    await component.stop?.();
  });

  it('waits for the pass under way when stopped, and runs none after', async () => {
    const runs = passes();
    const component = periodicComponent({ name: 'sweep', intervalMs: 1_000, pass: runs.pass });
    await component.start?.();
    let stopped = false;
    const stopping = component.stop?.().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    runs.finish();
    await stopping;
    await jest.advanceTimersByTimeAsync(10_000);
    expect(runs.started()).toBe(1);
  });

  it('reports readiness only when asked to, true while running', async () => {
    const silent = periodicComponent({ name: 'a', intervalMs: 1, pass: async () => undefined });
    expect(silent.isReady).toBeUndefined();
    const ready = periodicComponent({
      name: 'b',
      intervalMs: 1_000,
      readiness: true,
      pass: async () => undefined,
    });
    expect(await ready.isReady?.()).toBe(false);
    await ready.start?.();
    expect(await ready.isReady?.()).toBe(true);
    await ready.stop?.();
    expect(await ready.isReady?.()).toBe(false);
  });
});
