import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../app/i18n';
import {
  CalendarOutlined,
  ClockCircleOutlined,
  TeamOutlined,
  TrophyOutlined,
} from '@ant-design/icons';
import { Card, Skeleton, Spin, Typography } from 'antd';
import { useState } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { Countdown } from '../../time/components/Countdown';
import { useServerNow } from '../../time/hooks/serverClock';
import { useSession } from '../../session/hooks/useSession';
import { ActionButton } from '../../tournaments/components/ActionButton';
import { StatusBadge } from '../../tournaments/components/StatusBadge';
import { useHasOfflineChoices } from '../../tournaments/hooks/useHasOfflineChoices';
import { useTournamentList } from '../../tournaments/hooks/useTournamentList';
import {
  displayStatusOf,
  offlineCardActionOf,
  startOf,
  upcomingOf,
  type DisplayStatus,
  type Tournament,
} from '../../tournaments/display';
import { AlreadyRegistered } from './AlreadyRegistered';
import { OfflinePicker } from './OfflinePicker';

const BADGE: Record<DisplayStatus, string> = {
  upcoming: 'offline.badgeUpcoming',
  live: 'offline.badgeLive',
  finished: 'offline.badgeFinished',
};

/** Spec §2: an offline-screen tournament card. */
export function OfflineTournamentCard({
  tournament,
  loggedIn,
  onPick,
}: {
  tournament: Tournament;
  loggedIn: boolean;
  onPick: (tournament: Tournament, hasChoices: boolean) => void;
}) {
  const { t } = useTranslation();
  const now = useServerNow();
  const hasChoices = useHasOfflineChoices(
    tournament.id,
    loggedIn && tournament.status === 'upcoming',
  );
  const status = displayStatusOf(tournament, now);
  const action = offlineCardActionOf(tournament, now, { loggedIn, hasChoices });
  return (
    <Card
      className="offline-card"
      title={<h3 className="card-title">{tournament.title}</h3>}
      extra={<StatusBadge status={status} label={t(BADGE[status])} />}
    >
      <ul className="facts">
        <li>
          <TrophyOutlined aria-hidden="true" />{' '}
          {t('offline.prize', { prize: tournament.prize || '—' })}
        </li>
        <li>
          <TeamOutlined aria-hidden="true" />{' '}
          {t('offline.preRegistered', { count: tournament.participantCount })}
        </li>
        <li>
          <CalendarOutlined aria-hidden="true" />{' '}
          {t('offline.starts', {
            date: formatDateTime(startOf(tournament), { dateStyle: 'medium', timeStyle: 'short' }),
          })}
        </li>
        <li>
          <ClockCircleOutlined aria-hidden="true" /> {t('offline.roundTime')}
        </li>
        {status === 'upcoming' && (
          <li>
            {t('offline.startsIn')}{' '}
            <Countdown to={startOf(tournament)} label={t('offline.startsIn')} />
          </li>
        )}
      </ul>
      <ActionButton action={action} block onPick={() => onPick(tournament, hasChoices)} />
    </Card>
  );
}

function LoginRequired() {
  const { t } = useTranslation();
  return (
    <div className="page narrow">
      <Card>
        <Typography.Title level={1} className="page-title">
          {t('offline.loginRequired')}
        </Typography.Title>
        <Typography.Paragraph>{t('offline.loginRequiredText')}</Typography.Paragraph>
        <Link to="/auth">{t('offline.goToLogin')}</Link>
      </Card>
    </div>
  );
}

/** Spec §2: the offline screen (pre-registration). */
export function OfflinePage() {
  const { t } = useTranslation();
  const { user, loading } = useSession();
  const list = useTournamentList({ poll: user !== null });
  const now = useServerNow(5_000);
  const [picking, setPicking] = useState<
    { tournament: Tournament; hasChoices: boolean } | undefined
  >();

  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label={t('common.loading')} />
      </div>
    );
  }
  if (!user) return <LoginRequired />;
  if (!user.isEmailVerified) return <Navigate to="/verify-email" replace />;
  if (picking) {
    return (
      <div className="page">
        {picking.hasChoices ? (
          <AlreadyRegistered onBack={() => setPicking(undefined)} />
        ) : (
          <OfflinePicker
            tournament={picking.tournament}
            onDone={() => setPicking(undefined)}
            onCancel={() => setPicking(undefined)}
          />
        )}
      </div>
    );
  }
  const tournaments = upcomingOf(list.tournaments, now);
  return (
    <div className="page">
      <Typography.Title level={1} className="page-title">
        {t('offline.title')}
      </Typography.Title>
      <Card title={<h2 className="card-title">{t('offline.howItWorks')}</h2>}>
        <ol className="how-it-works">
          <li>{t('offline.step1')}</li>
          <li>{t('offline.step2')}</li>
          <li>{t('offline.step3')}</li>
        </ol>
      </Card>
      <Typography.Title level={2} className="section-title">
        {t('offline.upcoming')}
      </Typography.Title>
      {list.loading ? (
        <Card>
          <Skeleton active />
        </Card>
      ) : tournaments.length === 0 ? (
        <Card>
          <Typography.Title level={3}>{t('offline.noUpcoming')}</Typography.Title>
          <Link to="/live">{t('offline.seeLive')}</Link>
        </Card>
      ) : (
        <div className="card-grid">
          {tournaments.map((tournament) => (
            <OfflineTournamentCard
              key={tournament.id}
              tournament={tournament}
              loggedIn
              onPick={(picked, hasChoices) => setPicking({ tournament: picked, hasChoices })}
            />
          ))}
        </div>
      )}
      <Link to="/rules">{t('offline.readRules')}</Link>
    </div>
  );
}
