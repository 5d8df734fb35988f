import { Button, Card, Space, Tag, Typography } from 'antd';
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
    <Card className="tournament-header">
      <Space direction="vertical" style={{ width: '100%' }}>
        <Space wrap style={{ justifyContent: 'space-between', width: '100%' }}>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {tournament.title}
          </Typography.Title>
          <Tag color={status === 'live' ? 'red' : status === 'upcoming' ? 'blue' : 'default'}>
            {badge}
          </Tag>
        </Space>
        <Space wrap>
          <Typography.Text>Prize: {tournament.prize || 'No prize'}</Typography.Text>
          <Typography.Text>{playerCount} players</Typography.Text>
          {status === 'upcoming' && <Countdown to={startOf(tournament)} label="Time until start" />}
          {isAdmin && (
            <Button size="small" onClick={() => go('/admin')}>
              Admin
            </Button>
          )}
        </Space>
      </Space>
    </Card>
  );
}
