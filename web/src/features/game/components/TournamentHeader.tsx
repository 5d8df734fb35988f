import { Button, Card, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Countdown } from '../../time/components/Countdown';
import { useServerNow } from '../../time/hooks/serverClock';
import { displayStatusOf, startOf, type Tournament } from '../../tournaments/display';
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
  const { t } = useTranslation();
  const now = useServerNow();
  const go = useGo();
  const status = finished ? 'finished' : displayStatusOf(tournament, now);
  const badge =
    status === 'upcoming'
      ? t('game.statusUpcoming')
      : status === 'live'
        ? roundNumber > 0
          ? t('game.statusLiveRound', { round: roundNumber })
          : t('game.statusLive')
        : t('game.statusFinished');
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
        <Typography.Text>
          {t('game.prize', { prize: tournament.prize || t('common.noPrize') })}
        </Typography.Text>
        <Typography.Text>{t('common.players', { count: playerCount })}</Typography.Text>
        {status === 'upcoming' && (
          <Countdown to={startOf(tournament)} label={t('game.timeUntilStart')} />
        )}
        {isAdmin && (
          <Button size="small" onClick={() => go('/admin')}>
            {t('header.admin')}
          </Button>
        )}
      </div>
    </Card>
  );
}
