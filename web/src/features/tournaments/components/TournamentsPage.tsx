import { Alert, Empty, Skeleton, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { TournamentRow } from '../../home/components/TournamentRow';
import { WithViewer } from '../../home/components/ConnectedTournament';
import { useTournamentList } from '../hooks/useTournamentList';

/** Every tournament in the server's order (live, upcoming soonest first, finished latest first). */
export function TournamentsPage() {
  const { t } = useTranslation();
  const list = useTournamentList();
  return (
    <div className="page">
      <Typography.Title level={1} className="page-title">
        {t('tournaments.title')}
      </Typography.Title>
      {list.loading ? (
        <Skeleton active />
      ) : list.error ? (
        <Alert type="error" showIcon message={t('home.failed')} />
      ) : list.tournaments.length === 0 ? (
        <Empty description={t('home.noUpcoming')} />
      ) : (
        list.tournaments.map((tournament) => (
          <WithViewer key={tournament.id} tournament={tournament}>
            {(viewer) => <TournamentRow tournament={tournament} viewer={viewer} />}
          </WithViewer>
        ))
      )}
    </div>
  );
}
