import { Alert, Empty, Skeleton, Typography } from 'antd';
import { TournamentRow } from '../../home/components/TournamentRow';
import { WithViewer } from '../../home/components/ConnectedTournament';
import { useTournamentList } from '../hooks/useTournamentList';

/** Every tournament in the server's order (live, upcoming soonest first, finished latest first). */
export function TournamentsPage() {
  const list = useTournamentList();
  return (
    <div className="page">
      <Typography.Title level={1} className="page-title">
        All Tournaments
      </Typography.Title>
      {list.loading ? (
        <Skeleton active />
      ) : list.error ? (
        <Alert type="error" showIcon message="Failed to load tournaments" />
      ) : list.tournaments.length === 0 ? (
        <Empty description="No upcoming tournaments scheduled. Stay tuned for new competitions!" />
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
