import { Card, Col, Row, Statistic } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TournamentFieldsFragment } from '../../../gql/operations';
import { statsOf } from '../validation';

/** The dashboard's figures (/admin): tournaments in all, live, upcoming, and their players. */
export function StatsRow({ tournaments }: { tournaments: TournamentFieldsFragment[] }) {
  const { t: translate } = useTranslation();
  const stats = statsOf(tournaments);
  return (
    <Row gutter={[12, 12]}>
      {(
        [
          [translate('admin.totalTournaments'), stats.total],
          [translate('admin.liveTournaments'), stats.live],
          [translate('admin.upcoming'), stats.upcoming],
          [translate('admin.totalPlayers'), stats.players],
        ] as const
      ).map(([title, value]) => (
        <Col xs={12} md={6} key={title}>
          <Card>
            <Statistic title={title} value={value} />
          </Card>
        </Col>
      ))}
    </Row>
  );
}
