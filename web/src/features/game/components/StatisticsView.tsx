import { useQuery } from '@apollo/client';
import { useTranslation } from 'react-i18next';
import { useEffect } from 'react';
import { formatDateTime, formatNumber, i18n } from '../../../app/i18n';
import { logFailure } from '../../../app/log';
import { Alert, Card, Col, Row, Space, Spin, Statistic, Tag, Typography } from 'antd';
import { TournamentStatisticsDocument } from '../../../gql/operations';

/**
 * Spec §2 long date: US English ("Monday, November 23, 2026 at 9:00 PM"), or the same in the
 * user's language (Persian: its calendar, words and digits).
 */
function longDate(iso: string): string {
  return formatDateTime(new Date(iso), {
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
  const { t } = useTranslation();
  const { data, loading, error } = useQuery(TournamentStatisticsDocument, {
    variables: { tournamentId },
    fetchPolicy: 'network-only',
  });
  // Spec §8: 'Failed to fetch tournament statistics' leads to the error view (and the log).
  useEffect(() => {
    if (error) logFailure(i18n.t('game.statsFetchFailed', { lng: 'en' }), error);
  }, [error]);
  if (loading && !data) {
    return (
      <Card>
        <Space direction="vertical" align="center" style={{ width: '100%' }}>
          <Spin aria-label={t('common.loading')} />
          <Typography.Title level={4}>{t('game.statsLoading')}</Typography.Title>
        </Space>
      </Card>
    );
  }
  if (error || !data) {
    return (
      <Alert
        type="error"
        showIcon
        message={t('game.statsError')}
        description={t('game.statsErrorText')}
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
          {stats.tournament.status === 'finished'
            ? t('game.statsCompleted')
            : t('game.statsInProgress')}
        </Tag>
      </Space>
      <Row gutter={[12, 12]}>
        <Col xs={24} md={8}>
          <Card>
            <Statistic
              title={t('game.totalRounds')}
              value={stats.totalRounds}
              formatter={(value) => formatNumber(Number(value))}
            />
            <Typography.Text type="secondary">{t('game.totalRoundsText')}</Typography.Text>
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            <Statistic
              title={t('game.participants')}
              value={stats.participantBreakdown.total}
              formatter={(value) => formatNumber(Number(value))}
            />
            <Typography.Text type="secondary">
              {t('game.onlineOffline', {
                online: stats.participantBreakdown.online,
                offline: stats.participantBreakdown.offline,
              })}
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card>
            {stats.winner ? (
              <>
                <Statistic title={t('game.winnerTitle')} value={stats.winner.username} />
                {stats.tournament.prize && <Tag color="gold">{stats.tournament.prize}</Tag>}
                <Typography.Text type="secondary">{t('game.championCaption')}</Typography.Text>
              </>
            ) : (
              <>
                <Statistic title={t('game.winnerTitle')} value={t('game.noWinnerYet')} />
                <Typography.Text type="secondary">{t('game.incomplete')}</Typography.Text>
              </>
            )}
          </Card>
        </Col>
      </Row>
      <Card title={t('game.details')}>
        <Typography.Paragraph>
          {t('game.startTime', { date: longDate(stats.tournament.startAt) })}
        </Typography.Paragraph>
        <Typography.Paragraph>
          {t('game.prizePool', { prize: stats.tournament.prize || t('common.noPrize') })}
        </Typography.Paragraph>
        {stats.participantCount > 0 && (
          <>
            <Typography.Paragraph>
              {t('game.remainingPlayers', { count: stats.participantCount - eliminated })}
            </Typography.Paragraph>
            <Typography.Paragraph>
              {t('game.eliminatedPlayers', { count: eliminated })}
            </Typography.Paragraph>
          </>
        )}
        {stats.disqualifiedCount > 0 && (
          <div data-testid="statistics-disqualified">
            <Typography.Paragraph>
              {t('game.disqualifiedPlayers', { count: stats.disqualifiedCount })}
            </Typography.Paragraph>
            <ul className="disqualified-list">
              {stats.participants
                .filter((p) => p.isDisqualified)
                .map((p) => (
                  <li key={p.username}>
                    {/* The reason reaches only administrators and the player themself. */}
                    {p.disqualificationReason
                      ? t('game.disqualifiedPlayer', {
                          name: p.username,
                          reason: p.disqualificationReason,
                        })
                      : p.username}
                  </li>
                ))}
            </ul>
          </div>
        )}
      </Card>
    </Space>
  );
}
