import { Button, Card, Tag, Typography } from 'antd';
import { Countdown } from '../../time/components/Countdown';
import { useServerNow } from '../../time/hooks/serverClock';
import { displayStatusOf, startOf, type Tournament } from '../../tournaments/rules';
import { useGo } from '../../../app/useGo';

/** Spec §2 tournament header: name, status badge, prize, players, countdown, admin button. */
export function TournamentHeader({
  tournament,
  roundNumber,
  isAdmin,
  playerCount,
  finished,
}: {
  tournament: Tournament;
  roundNumber: number;
  isAdmin: boolean;
  playerCount: number;
  /** The game has ended (the cached tournament may still say live). */
  finished: boolean;
}) {
  const now = useServerNow();
  const go = useGo();
  const status = finished ? 'finished' : displayStatusOf(tournament, now);
  const badge =
    status === 'upcoming'
      ? 'Upcoming Tournament'
      : status === 'live'
        ? `LIVE TOURNAMENT${roundNumber > 0 ? ` - Round ${roundNumber}` : ''}`
        : 'Tournament Finished';
  return (
    <Card className="tournament-header" size="small">
      <div className="tournament-header-row">
        <Typography.Title level={3} className="tournament-header-title">
          {tournament.title}
        </Typography.Title>
        <Tag color={status === 'live' ? 'red' : status === 'upcoming' ? 'blue' : 'default'}>
          {badge}
        </Tag>
      </div>
      <div className="tournament-header-facts">
        <Typography.Text>Prize: {tournament.prize || 'No prize'}</Typography.Text>
        <Typography.Text>{playerCount} players</Typography.Text>
        {status === 'upcoming' && <Countdown to={startOf(tournament)} label="Time until start" />}
        {isAdmin && (
          <Button size="small" onClick={() => go('/admin')}>
            Admin
          </Button>
        )}
      </div>
    </Card>
  );
}
