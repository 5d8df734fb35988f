import { App, type NotificationArgsProps } from 'antd';
import { useCallback, useEffect, useRef } from 'react';

export interface Toast {
  title: string;
  description?: string;
  /** Destructive toasts are red (errors); everything else is a success/info toast. */
  variant?: 'success' | 'destructive' | 'info';
  /** Milliseconds; spec §9's toast default is 5000. */
  durationMs?: number;
}

export const TOAST_DEFAULT_MS = 5_000;

/** Spec §8: only one toast is visible at a time (the newest replaces the previous). */
export const TOAST_MAX_COUNT = 1;

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

/** Shows a toast (antd notification) the spec's way; use inside the app's <AntApp>. */
export function useToast(): (toast: Toast) => void {
  const { notification } = App.useApp();
  return useCallback(
    ({ title, description, variant = 'success', durationMs = TOAST_DEFAULT_MS }: Toast) => {
      const open =
        variant === 'destructive'
          ? notification.error
          : variant === 'info'
            ? notification.info
            : notification.success;
      open({
        key: 'toast',
        message: title,
        description,
        duration: durationMs / 1000,
        placement: toastPlacement(),
        className: 'toast',
        role: variant === 'destructive' ? 'alert' : 'status',
      });
    },
    [notification],
  );
}

/**
 * Shows toasts one after another, each for its own duration (one event may announce several,
 * e.g. the game's end); a new sequence replaces whatever of the previous one is still queued,
 * so only one toast is ever visible and the newest news wins.
 */
export function useToastSequence(): (toasts: Toast[]) => void {
  const toast = useToast();
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);
  return useCallback(
    (toasts: Toast[]) => {
      timers.current.forEach(clearTimeout);
      timers.current = [];
      let startMs = 0;
      for (const next of toasts) {
        if (startMs === 0) toast(next);
        else timers.current.push(setTimeout(() => toast(next), startMs));
        startMs += next.durationMs ?? TOAST_DEFAULT_MS;
      }
    },
    [toast],
  );
}
