import { App } from 'antd';
import { useCallback } from 'react';

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
        placement: 'topRight',
        role: variant === 'destructive' ? 'alert' : 'status',
      });
    },
    [notification],
  );
}
