import { Progress, Typography } from 'antd';
import { useCountdown } from '../../time/hooks/serverClock';
import { isUrgent, progressPercent, secondsLeft } from '../state';

/** The round's clock from the server deadline (and the server-time offset), with its progress bar. */
export function RoundCountdown({
  endsAt,
  totalSeconds,
  children,
}: {
  endsAt: number;
  totalSeconds: number;
  children?: (remainingMs: number) => React.ReactNode;
}) {
  const remainingMs = useCountdown(endsAt, 250);
  const urgent = isUrgent(remainingMs);
  return (
    <div className={urgent ? 'round-clock urgent' : 'round-clock'}>
      <Typography.Text
        strong
        role="timer"
        aria-label="Time remaining"
        className="round-clock-seconds"
        style={{ color: urgent ? '#dc2626' : undefined, fontSize: 28 }}
      >
        {secondsLeft(remainingMs)}s
      </Typography.Text>
      <Progress
        percent={progressPercent(remainingMs, totalSeconds)}
        showInfo={false}
        strokeColor={urgent ? '#dc2626' : '#7c3aed'}
        aria-label="Round progress"
      />
      {urgent && (
        <Typography.Text strong style={{ color: '#dc2626' }} role="alert">
          HURRY UP! TIME RUNNING OUT!
        </Typography.Text>
      )}
      {children?.(remainingMs)}
    </div>
  );
}
