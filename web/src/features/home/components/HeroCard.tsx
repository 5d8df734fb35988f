import { TeamOutlined, TrophyOutlined } from '@ant-design/icons';
import { Card, Typography } from 'antd';
import { Countdown } from '../../time/components/Countdown';
import { useServerNow } from '../../time/hooks/serverClock';
import { ActionButton } from '../../tournaments/components/ActionButton';
import { StatusBadge } from '../../tournaments/components/StatusBadge';
import {
  countdownTargetOf,
  displayStatusOf,
  heroActionOf,
  type DisplayStatus,
  type Tournament,
  type Viewer,
} from '../../tournaments/rules';

const BADGE: Record<DisplayStatus, string> = {
  live: 'TOURNAMENT ACTIVE',
  upcoming: 'NEXT TOURNAMENT',
  finished: 'TOURNAMENT FINISHED',
};
const COUNTDOWN_LABEL: Record<DisplayStatus, string> = {
  live: 'ENDS IN',
  upcoming: 'STARTS IN',
  finished: 'FINISHED',
};

export const DEFAULT_DESCRIPTION = 'The ultimate test of strategic thinking';

/** Spec §2: the home screen's hero card (or the no-tournament card). */
export function HeroCard({ tournament, viewer }: { tournament?: Tournament; viewer: Viewer }) {
  const now = useServerNow();
  if (!tournament) {
    return (
      <Card className="hero hero--empty" aria-label="Active tournament">
        <Typography.Title level={2} className="hero__title">
          NO ACTIVE TOURNAMENTS
        </Typography.Title>
        <Typography.Paragraph className="hero__text">Stay Tuned!</Typography.Paragraph>
      </Card>
    );
  }
  const status = displayStatusOf(tournament, now);
  const target = countdownTargetOf(tournament, now);
  const action = heroActionOf(tournament, now, viewer);
  return (
    <Card className={`hero hero--${status}`} aria-label="Active tournament">
      {status === 'live' && <div className="hero__heading">ACTIVE TOURNAMENT</div>}
      <StatusBadge status={status} label={BADGE[status]} />
      <Typography.Title level={2} className="hero__title">
        {tournament.title}
      </Typography.Title>
      <Typography.Paragraph className="hero__text">
        {tournament.description || DEFAULT_DESCRIPTION}
      </Typography.Paragraph>
      <div className="hero__facts">
        <div className="hero__fact">
          <span className="hero__label">{COUNTDOWN_LABEL[status]}</span>
          {target === undefined ? (
            <strong>COMPLETED</strong>
          ) : (
            <strong>
              <Countdown to={target} label={COUNTDOWN_LABEL[status]} />
            </strong>
          )}
        </div>
        <div className="hero__fact">
          <span className="hero__label">
            <TrophyOutlined aria-hidden="true" /> PRIZE
          </span>
          <strong>{tournament.prize || '—'}</strong>
        </div>
        <div className="hero__fact">
          <span className="hero__label">
            <TeamOutlined aria-hidden="true" /> PLAYERS
          </span>
          <strong>{tournament.participantCount}</strong>
        </div>
      </div>
      <ActionButton action={action} size="large" block />
      {status === 'upcoming' && (
        <Typography.Paragraph className="hero__note">
          Play offline now, or wait to play live when tournament starts!
        </Typography.Paragraph>
      )}
    </Card>
  );
}
