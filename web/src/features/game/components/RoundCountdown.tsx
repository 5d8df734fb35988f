import { Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
  const remainingMs = useCountdown(endsAt, 250);
  const urgent = isUrgent(remainingMs);
  return (
    <div className={urgent ? 'round-clock urgent' : 'round-clock'}>
      <div className="round-clock-row">
        <Typography.Text
          strong
          role="timer"
          aria-label={t('game.timeRemaining')}
          className="round-clock-seconds"
          style={{ color: urgent ? '#dc2626' : undefined }}
        >
          {t('common.seconds', { count: secondsLeft(remainingMs) })}
        </Typography.Text>
        <div className="round-clock-bar">
          <Progress
            className="round-clock-progress"
            percent={progressPercent(remainingMs, totalSeconds)}
            showInfo={false}
            strokeColor={urgent ? '#dc2626' : '#7c3aed'}
            aria-label={t('game.roundProgress')}
          />
          {/* Room for the warning is kept before it shows, so nothing below it moves. */}
          <div className="round-clock-warning">
            {urgent && (
              <Typography.Text strong style={{ color: '#dc2626' }} role="alert">
                {t('game.hurry')}
              </Typography.Text>
            )}
          </div>
        </div>
      </div>
      {children?.(remainingMs)}
    </div>
  );
}
