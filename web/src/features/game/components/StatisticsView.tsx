import { useQuery } from '@apollo/client';
import { Alert, Card, Col, Row, Space, Spin, Statistic, Tag, Typography } from 'antd';
import { TournamentStatisticsDocument } from '../../../gql/operations';

/** Spec §2 long US date, e.g. "Monday, November 23, 2026 at 9:00 PM". */
function longDate(iso: string): string {
  return new Date(iso).toLocaleString('en-US', {
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });
}

/** Spec §2 statistics view (results mode). */
export function StatisticsView({ tournamentId }: { tournamentId: string }) {
  const { data, loading, error } = useQuery(TournamentStatisticsDocument, {
    variables: { tournamentId },
    fetchPolicy: 'network-only',
  });
  if (loading && !data) {
    return (
      <Card>
        <Space direction="vertical" align="center" style={{ width: '100%' }}>
          <Spin aria-label="Loading" />
          <Typography.Title level={4}>Loading Tournament Statistics...</Typography.Title>
        </Space>
      </Card>
    );
  }
  if (error || !data) {
    return (
      <Alert
        type="error"
        showIcon
        message="Error Loading Statistics"
        description="Could not load tournament statistics. Please try again later."
      />
    );
  }
  const stats = data.tournamentStatistics;
  const eliminated = stats.participants.filter((p) => p.isEliminated).length;
  return (
    <Space direction="vertical" style={{ width: '100%' }} size="middle">
      <Space wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {stats.tournament.title}
        </Typography.Title>
        <Tag color={stats.tournament.status === 'finished' ? 'green' : 'blue'}>
          {stats.tournament.status === 'finished' ? 'COMPLETED' : 'IN PROGRESS'}
        </Tag>
      </Space>
      <Row gutter={[12, 12]}>
        <Col xs={24} md={8}>
          <Card>
            <Statistic title="Total Rounds" value={stats.totalRounds} />
            <Typography.Text type="secondary">Rounds completed in this tournament</Typography.Text>
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            <Statistic title="Participants" value={stats.participantBreakdown.total} />
            <Typography.Text type="secondary">
              {stats.participantBreakdown.online} online · {stats.participantBreakdown.offline}{' '}
              offline
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            {stats.winner ? (
              <>
                <Statistic title="Winner" value={stats.winner.username} />
                {stats.tournament.prize && <Tag color="gold">{stats.tournament.prize}</Tag>}
                <Typography.Text type="secondary">Tournament champion</Typography.Text>
              </>
            ) : (
              <>
                <Statistic title="Winner" value="No Winner Yet" />
                <Typography.Text type="secondary">Tournament incomplete</Typography.Text>
              </>
            )}
          </Card>
        </Col>
      </Row>
      <Card title="Tournament Details">
        <Typography.Paragraph>
          Start time: {longDate(stats.tournament.startAt)}
        </Typography.Paragraph>
        <Typography.Paragraph>
          Prize pool: {stats.tournament.prize || 'No prize'}
        </Typography.Paragraph>
        {stats.participantCount > 0 && (
          <>
            <Typography.Paragraph>
              Remaining players: {stats.participantCount - eliminated}
            </Typography.Paragraph>
            <Typography.Paragraph>Eliminated players: {eliminated}</Typography.Paragraph>
          </>
        )}
      </Card>
    </Space>
  );
}
