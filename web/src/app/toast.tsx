import { App, type NotificationArgsProps } from 'antd';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  type PointerEvent,
  type ReactNode,
} from 'react';

export interface Toast {
  title: string;
  description?: string;
  /** Destructive toasts are red (errors); everything else is a success/info toast. */
  variant?: 'success' | 'destructive' | 'info';
  /** Milliseconds; spec §9's toast default is 5000. */
  durationMs?: number;
}

export const TOAST_DEFAULT_MS = 5_000;

/** Spec §8: only one toast is visible at a time (the others wait their turn in the queue). */
export const TOAST_MAX_COUNT = 1;

/** Spec §9's toast library defaults: dismissed by a swipe right of 50 px, focused with F8. */
export const TOAST_SWIPE_THRESHOLD_PX = 50;
export const TOAST_HOTKEY = 'F8';

/** Where a phone layout starts (the same break as the header's and the play screen's CSS). */
export const PHONE_QUERY = '(max-width: 600px)';

/**
 * Toasts sit at the bottom, never over the header's controls or the play screen's timer and
 * options: centred and compact on phones (the play screen keeps room for one below the options,
 * app.css), in the bottom-right corner on wider screens, away from the round's content.
 */
export function toastPlacement(): NotificationArgsProps['placement'] {
  const phone = typeof window !== 'undefined' && window.matchMedia?.(PHONE_QUERY).matches;
  return phone ? 'bottom' : 'bottomRight';
}

export interface QueuedToast extends Toast {
  /** Unique within the queue: the toast's key on screen. */
  id: string;
  durationMs: number;
}

/**
 * How the queue puts a toast on screen and takes it off. The screen times the toast: it calls
 * `gone` once the toast has been shown for its duration (counted from when the page has painted
 * it, not from when it was asked for nor from when it was put in the page) or the user closed it.
 */
export interface ToastPresenter {
  open(toast: QueuedToast, gone: () => void): void;
  close(id: string): void;
}

/** How long past its duration a toast the screen never reports gone holds the queue up. */
export const TOAST_STUCK_MS = 10_000;

/**
 * Toasts one at a time (spec §8), each shown for its whole duration, then the next: a later
 * toast waits its turn and never cuts an earlier one short, so every toast can be read — the
 * end of a game's three, a round's Complete and the next round's Voting. An error jumps ahead of
 * the waiting ones (not of the one showing): what went wrong is told first. The user may dismiss
 * the one showing (its close button, a swipe), which brings on the next.
 */
export class ToastQueue {
  private waiting: QueuedToast[] = [];
  private showing: { toast: QueuedToast; stuck: ReturnType<typeof setTimeout> } | undefined;
  private nextId = 0;

  constructor(private readonly presenter: ToastPresenter) {}

  push(toast: Toast): void {
    this.nextId += 1;
    const queued: QueuedToast = {
      ...toast,
      id: `toast-${this.nextId}`,
      durationMs: toast.durationMs ?? TOAST_DEFAULT_MS,
    };
    if (queued.variant === 'destructive') {
      const firstCalm = this.waiting.findIndex((t) => t.variant !== 'destructive');
      this.waiting.splice(firstCalm === -1 ? this.waiting.length : firstCalm, 0, queued);
    } else {
      this.waiting.push(queued);
    }
    if (!this.showing) this.showNext();
  }

  /** Takes the toast off screen (if it is the one showing) and shows the next one. */
  dismiss(id: string): void {
    if (this.showing?.toast.id !== id) return;
    this.presenter.close(id);
    this.gone(id);
  }

  /** The toast on screen now, if any. */
  current(): QueuedToast | undefined {
    return this.showing?.toast;
  }

  /** How many wait behind the one showing. */
  pending(): number {
    return this.waiting.length;
  }

  /** Forgets everything (the app unmounts). */
  stop(): void {
    if (this.showing) clearTimeout(this.showing.stuck);
    this.showing = undefined;
    this.waiting = [];
  }

  private gone(id: string): void {
    if (this.showing?.toast.id !== id) return;
    clearTimeout(this.showing.stuck);
    this.showing = undefined;
    this.showNext();
  }

  private showNext(): void {
    const toast = this.waiting.shift();
    if (!toast) return;
    // Should the screen never say the toast is gone, the queue moves on all the same.
    const stuck = setTimeout(() => this.dismiss(toast.id), toast.durationMs + TOAST_STUCK_MS);
    this.showing = { toast, stuck };
    this.presenter.open(toast, () => this.gone(toast.id));
  }
}

/**
 * A horizontal swipe's handlers: `onSwipe` once the pointer has moved right by the threshold
 * (spec §9: swipe right, 50 px).
 */
export function swipeRightHandlers(onSwipe: () => void, thresholdPx = TOAST_SWIPE_THRESHOLD_PX) {
  let startX: number | undefined;
  const track = (event: PointerEvent<HTMLDivElement>) => {
    if (startX === undefined || event.clientX - startX < thresholdPx) return;
    startX = undefined;
    onSwipe();
  };
  return {
    onPointerDown: (event: PointerEvent<HTMLDivElement>) => {
      startX = event.clientX;
    },
    onPointerMove: track,
    onPointerUp: (event: PointerEvent<HTMLDivElement>) => {
      track(event);
      startX = undefined;
    },
    onPointerCancel: () => {
      startX = undefined;
    },
  };
}

/**
 * Runs `callback` once the page has painted what is in it now: in a task after the next frame's
 * callbacks (a frame's callbacks run just before it paints). Returns a cancel.
 */
export function afterNextPaint(callback: () => void): () => void {
  let task: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    task = setTimeout(callback, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(task);
  };
}

/**
 * Inside a toast: says when the page has painted it, i.e. when the user can see it. A busy page
 * (a long render, a loaded machine) may paint a toast well after putting it in the page.
 */
function WhenPainted({ onPainted, children }: { onPainted: () => void; children: ReactNode }) {
  useEffect(() => afterNextPaint(onPainted), [onPainted]);
  return <>{children}</>;
}

const ToastQueueContext = createContext<ToastQueue | undefined>(undefined);

/** The queue shown through antd's notifications (the app's <AntApp> provides them). */
function useNotificationQueue(): ToastQueue {
  const { notification } = App.useApp();
  const queueRef = useRef<ToastQueue>();
  const queue = useMemo(() => {
    // The toasts on screen, by id: one painted after it was closed is not put back up.
    const live = new Set<string>();
    return new ToastQueue({
      open: (toast, gone) => {
        const variant = toast.variant ?? 'success';
        const open =
          variant === 'destructive'
            ? notification.error
            : variant === 'info'
              ? notification.info
              : notification.success;
        let timed = false;
        // Puts the toast up (or updates it in place, by its key) with antd timing `durationMs`.
        const put = (durationMs: number) =>
          open({
            key: toast.id,
            message: <WhenPainted onPainted={onPainted}>{toast.title}</WhenPainted>,
            description: toast.description,
            // 0: not timed yet. antd would count from the notice's mount, which a busy page
            // paints later (the user then saw it for less than its duration).
            duration: durationMs / 1000,
            placement: toastPlacement(),
            className: 'toast',
            role: variant === 'destructive' ? 'alert' : 'status',
            onClose: () => {
              live.delete(toast.id);
              gone();
            },
            props: {
              tabIndex: -1,
              'data-toast-id': toast.id,
              ...swipeRightHandlers(() => queueRef.current?.dismiss(toast.id)),
            } as NotificationArgsProps['props'],
          });
        // Painted: from now on antd times it (pausing while hovered), the whole duration.
        function onPainted() {
          if (timed || !live.has(toast.id)) return;
          timed = true;
          put(toast.durationMs);
        }
        live.add(toast.id);
        put(0);
      },
      close: (id) => {
        live.delete(id);
        notification.destroy(id);
      },
    });
  }, [notification]);
  queueRef.current = queue;
  useEffect(() => () => queue.stop(), [queue]);
  return queue;
}

/**
 * The app's one toast queue (spec §8: one toast at a time, each for its duration), and F8 to
 * move the keyboard's focus to the toast showing (spec §9's hotkey). Inside <AntApp>.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const queue = useNotificationQueue();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== TOAST_HOTKEY) return;
      const shown = queue.current();
      const element = shown && document.querySelector<HTMLElement>(`[data-toast-id="${shown.id}"]`);
      if (!element) return;
      event.preventDefault();
      element.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [queue]);
  return <ToastQueueContext.Provider value={queue}>{children}</ToastQueueContext.Provider>;
}

/**
 * Shows a toast the spec's way: it joins the app's queue and shows for its whole duration once
 * those before it have. Outside a <ToastProvider> (a piece of the app rendered alone) the
 * component gets a queue of its own.
 */
export function useToast(): (toast: Toast) => void {
  const shared = useContext(ToastQueueContext);
  const own = useNotificationQueue();
  const queue = shared ?? own;
  return useCallback((toast: Toast) => queue.push(toast), [queue]);
}

/**
 * Shows toasts one after another, each for its own duration (one event may announce several,
 * e.g. the game's end): they join the queue in order, after whatever is already waiting.
 */
export function useToastSequence(): (toasts: Toast[]) => void {
  const toast = useToast();
  const latest = useRef(toast);
  latest.current = toast;
  return useCallback((toasts: Toast[]) => toasts.forEach((next) => latest.current(next)), []);
}
