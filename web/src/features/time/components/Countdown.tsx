import { useTranslation } from 'react-i18next';
import { localizeDigits } from '../../../app/i18n';
import { useCountdown } from '../hooks/serverClock';

/** `1d 02:03:04`, `02:03:04` or `03:04`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock =
    hours > 0 || days > 0
      ? `${pad(hours)}:${pad(minutes)}:${pad(seconds)}`
      : `${pad(minutes)}:${pad(seconds)}`;
  return days > 0 ? `${days}d ${clock}` : clock;
}

/** A live countdown to an instant on the server's clock. */
export function Countdown({ to, label }: { to: number; label?: string }) {
  useTranslation(); // re-renders on a language switch
  const remaining = useCountdown(to);
  return (
    <span className="countdown" role="timer" aria-label={label}>
      {localizeDigits(formatDuration(remaining))}
    </span>
  );
}
