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
} from '../../tournaments/rules';
import { AlreadyRegistered } from './AlreadyRegistered';
import { OfflinePicker } from './OfflinePicker';

const BADGE: Record<DisplayStatus, string> = {
  upcoming: 'Upcoming',
  live: 'ACTIVE NOW',
  finished: 'Finished',
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
      extra={<StatusBadge status={status} label={BADGE[status]} />}
    >
      <ul className="facts">
        <li>
          <TrophyOutlined aria-hidden="true" /> Prize: {tournament.prize || '—'}
        </li>
        <li>
          <TeamOutlined aria-hidden="true" /> Pre-Registered: {tournament.participantCount}
        </li>
        <li>
          <CalendarOutlined aria-hidden="true" /> Starts:{' '}
          {new Date(startOf(tournament)).toLocaleString('en-US', {
            dateStyle: 'medium',
            timeStyle: 'short',
          })}
        </li>
        <li>
          <ClockCircleOutlined aria-hidden="true" /> Round time: 30s
        </li>
        {status === 'upcoming' && (
          <li>
            Starts in <Countdown to={startOf(tournament)} label="Starts in" />
          </li>
        )}
      </ul>
      <ActionButton action={action} block onPick={() => onPick(tournament, hasChoices)} />
    </Card>
  );
}

function LoginRequired() {
  return (
    <div className="page narrow">
      <Card>
        <Typography.Title level={1} className="page-title">
          Login Required
        </Typography.Title>
        <Typography.Paragraph>
          You must be logged in to pre-register your choices for a tournament.
        </Typography.Paragraph>
        <Link to="/auth">Go to Login</Link>
      </Card>
    </div>
  );
}

/** Spec §2: the offline screen (pre-registration). */
export function OfflinePage() {
  const { user, loading } = useSession();
  const list = useTournamentList({ poll: user !== null });
  const now = useServerNow(5_000);
  const [picking, setPicking] = useState<
    { tournament: Tournament; hasChoices: boolean } | undefined
  >();

  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label="Loading" />
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
        Offline Mode
      </Typography.Title>
      <Card title={<h2 className="card-title">How it works</h2>}>
        <ol className="how-it-works">
          <li>
            <strong>Pre-submit</strong> your choices for all 17 rounds before the tournament starts.
          </li>
          <li>
            <strong>Auto-play:</strong> your choices are played for you automatically, round by
            round.
          </li>
          <li>
            <strong>Win prizes</strong> if your picks outguess the crowd to the end.
          </li>
        </ol>
      </Card>
      <Typography.Title level={2} className="section-title">
        Upcoming Tournaments
      </Typography.Title>
      {list.loading ? (
        <Card>
          <Skeleton active />
        </Card>
      ) : tournaments.length === 0 ? (
        <Card>
          <Typography.Title level={3}>No Upcoming Tournaments</Typography.Title>
          <Link to="/live">See what's live</Link>
        </Card>
      ) : (
        <div className="card-grid">
          {tournaments.map((tournament) => (
            <OfflineTournamentCard
              key={tournament.id}
              tournament={tournament}
              loggedIn
              onPick={(t, hasChoices) => setPicking({ tournament: t, hasChoices })}
            />
          ))}
        </div>
      )}
      <Link to="/rules">Read the rules</Link>
    </div>
  );
}
