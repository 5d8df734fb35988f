/**
 * @jest-environment jsdom
 */
import { act, renderHook } from '@testing-library/react';
import { countAt, useSmoothCount } from '../src/features/game/hooks/useSmoothCount';

function prefersReducedMotion(reduce: boolean) {
  window.matchMedia = (query: string) =>
    ({
      matches: reduce && query === '(prefers-reduced-motion: reduce)',
      media: query,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }) as unknown as MediaQueryList;
}

describe('the live total shown between updates', () => {
  const original = window.matchMedia;
  afterEach(() => {
    window.matchMedia = original;
    jest.useRealTimers();
  });

  it('interpolates linearly and lands on the target', () => {
    expect(countAt(100, 400, 0, 3_000)).toBe(100);
    expect(countAt(100, 400, 1_500, 3_000)).toBe(250);
    expect(countAt(100, 400, 3_000, 3_000)).toBe(400);
    expect(countAt(100, 400, 9_000, 3_000)).toBe(400);
  });

  it('moves up over about the time the previous update took, and shows a new round at once', () => {
    prefersReducedMotion(false);
    jest.useFakeTimers({ now: 0 });
    const { result, rerender } = renderHook(({ total }) => useSmoothCount(total), {
      initialProps: { total: 0 },
    });
    expect(result.current).toBe(0);
    act(() => jest.advanceTimersByTime(3_000));
    rerender({ total: 300 });
    // The first update came 3 s after the start: the next 3 s go from 0 to 300.
    act(() => jest.advanceTimersByTime(1_500));
    expect(result.current).toBe(150);
    act(() => jest.advanceTimersByTime(1_500));
    expect(result.current).toBe(300);
    rerender({ total: 0 });
    expect(result.current).toBe(0);
  });

  it('jumps when the user asks for reduced motion', () => {
    prefersReducedMotion(true);
    jest.useFakeTimers({ now: 0 });
    const { result, rerender } = renderHook(({ total }) => useSmoothCount(total), {
      initialProps: { total: 0 },
    });
    act(() => jest.advanceTimersByTime(3_000));
    rerender({ total: 300 });
    expect(result.current).toBe(300);
  });
});
