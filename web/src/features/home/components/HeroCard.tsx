import { TeamOutlined, TrophyOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../../app/i18n';
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
} from '../../tournaments/display';

const BADGE: Record<DisplayStatus, string> = {
  live: 'home.badgeLive',
  upcoming: 'home.badgeUpcoming',
  finished: 'home.badgeFinished',
};
const COUNTDOWN_LABEL: Record<DisplayStatus, string> = {
  live: 'home.endsIn',
  upcoming: 'home.startsIn',
  finished: 'home.finished',
};

/** Spec §2: the home screen's hero card (or the no-tournament card). */
export function HeroCard({ tournament, viewer }: { tournament?: Tournament; viewer: Viewer }) {
  const { t } = useTranslation();
  const now = useServerNow();
  if (!tournament) {
    return (
      <Card className="hero hero--empty" aria-label={t('home.heroLabel')}>
        <Typography.Title level={2} className="hero__title">
          {t('home.noActive')}
        </Typography.Title>
        <Typography.Paragraph className="hero__text">{t('home.stayTuned')}</Typography.Paragraph>
      </Card>
    );
  }
  const status = displayStatusOf(tournament, now);
  const target = countdownTargetOf(tournament, now);
  const action = heroActionOf(tournament, now, viewer);
  return (
    <Card className={`hero hero--${status}`} aria-label={t('home.heroLabel')}>
      {status === 'live' && <div className="hero__heading">{t('home.activeHeading')}</div>}
      <StatusBadge status={status} label={t(BADGE[status])} />
      <Typography.Title level={2} className="hero__title">
        {tournament.title}
      </Typography.Title>
      <Typography.Paragraph className="hero__text">
        {tournament.description || t('home.defaultDescription')}
      </Typography.Paragraph>
      <div className="hero__facts">
        <div className="hero__fact">
          <span className="hero__label">{t(COUNTDOWN_LABEL[status])}</span>
          {target === undefined ? (
            <strong>{t('home.completed')}</strong>
          ) : (
            <strong>
              <Countdown to={target} label={t(COUNTDOWN_LABEL[status])} />
            </strong>
          )}
        </div>
        <div className="hero__fact">
          <span className="hero__label">
            <TrophyOutlined aria-hidden="true" /> {t('home.prize')}
          </span>
          <strong>{tournament.prize || '—'}</strong>
        </div>
        <div className="hero__fact">
          <span className="hero__label">
            <TeamOutlined aria-hidden="true" /> {t('home.playersLabel')}
          </span>
          <strong>{formatNumber(tournament.participantCount)}</strong>
        </div>
      </div>
      <ActionButton action={action} size="large" block />
      {status === 'upcoming' && (
        <Typography.Paragraph className="hero__note">{t('home.upcomingNote')}</Typography.Paragraph>
      )}
    </Card>
  );
}
