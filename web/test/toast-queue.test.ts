// Issue 39, point 2: toasts are read — one at a time (spec §8), each for its whole duration, a
// later one never cutting an earlier one short; a swipe right of 50 px dismisses (spec §9).
import { swipeRightHandlers, TOAST_STUCK_MS, ToastQueue, type QueuedToast } from '../src/app/toast';

/**
 * A screen like antd's: it shows a toast for its duration from when it is put up (`lagMs`
 * later than asked), then says it is gone. Logs what opened and closed.
 */
function presenter({ lagMs = 0, reports = true } = {}) {
  const log: string[] = [];
  let open: QueuedToast | undefined;
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return {
    log,
    showing: () => open?.title,
    presenter: {
      open: (toast: QueuedToast, gone: () => void) => {
        const putUp = () => {
          open = toast;
          log.push(`open ${toast.title}`);
          timers.set(
            toast.id,
            setTimeout(() => {
              open = undefined;
              log.push(`gone ${toast.id}`);
              if (reports) gone();
            }, toast.durationMs),
          );
        };
        if (lagMs === 0) putUp();
        else timers.set(toast.id, setTimeout(putUp, lagMs));
      },
      close: (id: string) => {
        clearTimeout(timers.get(id));
        if (open?.id === id) open = undefined;
        log.push(`close ${id}`);
      },
    },
  };
}

describe('the toast queue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("shows the end of a game's three toasts each for its duration, whatever arrives after them", () => {
    const screen = presenter();
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Game Complete', durationMs: 5_000 });
    queue.push({ title: 'Winner Announced', durationMs: 8_000 });
    queue.push({ title: 'Game Finished', durationMs: 5_000 });
    // The tournament's finish arrives at once: it waits its turn.
    queue.push({ title: 'Tournament Finished', durationMs: 5_000 });
    expect(screen.showing()).toBe('Game Complete');
    jest.advanceTimersByTime(4_999);
    expect(screen.showing()).toBe('Game Complete');
    jest.advanceTimersByTime(1);
    expect(screen.showing()).toBe('Winner Announced');
    jest.advanceTimersByTime(7_999);
    expect(screen.showing()).toBe('Winner Announced');
    jest.advanceTimersByTime(1);
    expect(screen.showing()).toBe('Game Finished');
    jest.advanceTimersByTime(5_000);
    expect(screen.showing()).toBe('Tournament Finished');
    jest.advanceTimersByTime(5_000);
    expect(screen.showing()).toBeUndefined();
    expect(screen.log.filter((line) => line.startsWith('open'))).toEqual([
      'open Game Complete',
      'open Winner Announced',
      'open Game Finished',
      'open Tournament Finished',
    ]);
  });

  it('shows one toast at a time: each opens only after the one before closed', () => {
    const screen = presenter();
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Round 2 Complete', durationMs: 4_000 });
    queue.push({ title: 'Round 3 Voting', durationMs: 3_000 });
    jest.advanceTimersByTime(7_000);
    expect(screen.log).toEqual([
      'open Round 2 Complete',
      'gone toast-1',
      'open Round 3 Voting',
      'gone toast-2',
    ]);
  });

  it('counts the duration from when the toast is really on screen', () => {
    const screen = presenter({ lagMs: 700 });
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Round 1 Complete', durationMs: 4_000 });
    queue.push({ title: 'Round 2 Voting', durationMs: 3_000 });
    jest.advanceTimersByTime(700 + 3_999);
    expect(screen.showing()).toBe('Round 1 Complete');
    jest.advanceTimersByTime(1);
    expect(queue.current()?.title).toBe('Round 2 Voting');
  });

  it('moves on should the screen never say a toast is gone', () => {
    const screen = presenter({ reports: false });
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Game Complete', durationMs: 5_000 });
    queue.push({ title: 'Winner Announced', durationMs: 8_000 });
    jest.advanceTimersByTime(5_000 + TOAST_STUCK_MS - 1);
    expect(queue.current()?.title).toBe('Game Complete');
    jest.advanceTimersByTime(1);
    expect(queue.current()?.title).toBe('Winner Announced');
  });

  it('uses the 5 s default for a toast without a duration', () => {
    const screen = presenter();
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Welcome back!' });
    jest.advanceTimersByTime(4_999);
    expect(screen.showing()).toBe('Welcome back!');
    jest.advanceTimersByTime(1);
    expect(screen.showing()).toBeUndefined();
  });

  it('brings on the next toast when the user dismisses the one showing', () => {
    const screen = presenter();
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Round Results', durationMs: 3_000 });
    queue.push({ title: 'Advertisement', durationMs: 2_000 });
    queue.dismiss(queue.current()!.id);
    expect(screen.showing()).toBe('Advertisement');
    // The dismissed toast's own timer does not cut the next one short.
    jest.advanceTimersByTime(1_999);
    expect(screen.showing()).toBe('Advertisement');
  });

  it('puts an error ahead of the waiting toasts, never over the one showing', () => {
    const screen = presenter();
    const queue = new ToastQueue(screen.presenter);
    queue.push({ title: 'Round 4 Voting', durationMs: 3_000 });
    queue.push({ title: 'Round Results', durationMs: 3_000 });
    queue.push({ title: 'Vote not recorded', variant: 'destructive' });
    expect(screen.showing()).toBe('Round 4 Voting');
    jest.advanceTimersByTime(3_000);
    expect(screen.showing()).toBe('Vote not recorded');
  });
});

describe('the swipe to dismiss', () => {
  const at = (clientX: number) => ({ clientX }) as never;

  it('dismisses once the pointer moved 50 px to the right', () => {
    const dismiss = jest.fn();
    const swipe = swipeRightHandlers(dismiss);
    swipe.onPointerDown(at(100));
    swipe.onPointerMove(at(149));
    expect(dismiss).not.toHaveBeenCalled();
    swipe.onPointerMove(at(150));
    swipe.onPointerUp(at(160));
    expect(dismiss).toHaveBeenCalledTimes(1);
  });

  it('does not dismiss on a shorter or leftward drag', () => {
    const dismiss = jest.fn();
    const swipe = swipeRightHandlers(dismiss);
    swipe.onPointerDown(at(100));
    swipe.onPointerUp(at(140));
    swipe.onPointerDown(at(100));
    swipe.onPointerUp(at(20));
    expect(dismiss).not.toHaveBeenCalled();
  });
});
