import { useEffect, useRef, useState } from 'react';
import { useReducedMotion } from '../../../app/motion';

/** How often a moving count is redrawn (a number, not an animation: 10 a second is smooth). */
const TICK_MS = 100;
/** The bounds of how long a move takes: about the time since the previous update. */
const MIN_MOVE_MS = 250;
const MAX_MOVE_MS = 5_000;

/** The count shown `elapsedMs` into a move from `from` to `to` that takes `durationMs`. */
export function countAt(from: number, to: number, elapsedMs: number, durationMs: number): number {
  if (durationMs <= 0 || elapsedMs >= durationMs) return to;
  return Math.round(from + ((to - from) * Math.max(0, elapsedMs)) / durationMs);
}

/**
 * A live count (the round's vote total) that moves smoothly between updates: the gateway sends
 * the total once a second to a small game and every few seconds to a large one (issue 36), so
 * a count that jumped would stand still, then leap. A rise is spread over about as long as the
 * previous update took to come; a fall (a new round's 0) shows at once, and so does everything
 * when the user asks for reduced motion.
 */
export function useSmoothCount(target: number): number {
  const reduced = useReducedMotion();
  const [shown, setShown] = useState(target);
  const shownRef = useRef(target);
  const lastUpdateAt = useRef<number | undefined>(undefined);

  useEffect(() => {
    const now = Date.now();
    const previous = lastUpdateAt.current;
    lastUpdateAt.current = now;
    const from = shownRef.current;
    const show = (count: number) => {
      shownRef.current = count;
      setShown(count);
    };
    if (reduced || previous === undefined || target <= from) {
      show(target);
      return undefined;
    }
    const duration = Math.min(MAX_MOVE_MS, Math.max(MIN_MOVE_MS, now - previous));
    const timer = setInterval(() => {
      const count = countAt(from, target, Date.now() - now, duration);
      show(count);
      if (count === target) clearInterval(timer);
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [target, reduced]);

  return shown;
}
