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
      <div className="round-clock-row">
        <Typography.Text
          strong
          role="timer"
          aria-label="Time remaining"
          className="round-clock-seconds"
          style={{ color: urgent ? '#dc2626' : undefined }}
        >
          {secondsLeft(remainingMs)}s
        </Typography.Text>
        <div className="round-clock-bar">
          <Progress
            className="round-clock-progress"
            percent={progressPercent(remainingMs, totalSeconds)}
            showInfo={false}
            strokeColor={urgent ? '#dc2626' : '#7c3aed'}
            aria-label="Round progress"
          />
          {/* Room for the warning is kept before it shows, so nothing below it moves. */}
          <div className="round-clock-warning">
            {urgent && (
              <Typography.Text strong style={{ color: '#dc2626' }} role="alert">
                HURRY UP! TIME RUNNING OUT!
              </Typography.Text>
            )}
          </div>
        </div>
      </div>
      {children?.(remainingMs)}
    </div>
  );
}
