import { useQuery } from '@apollo/client';
import { Alert, Empty, List, Space, Spin, Tag, Typography } from 'antd';
import { formatNumber, i18n } from '../../../app/i18n';
import { TournamentFairPlayDocument } from '../../../gql/operations';
import { FairPlayMember } from './FairPlayMember';
import { useDisqualified } from './useDisqualified';

/**
 * Issue 28: the tournament's fair-play report in the details dialog — groups of accounts linked
 * by a shared device or network, each with its score and the evidence that made it (the evidence
 * texts come from the server as they are). Live while the game runs, final at its end.
 */
export function FairPlaySection({ tournamentId }: { tournamentId: string }) {
  const { data, loading, error } = useQuery(TournamentFairPlayDocument, {
    variables: { tournamentId },
    fetchPolicy: 'network-only',
  });
  const report = data?.tournamentFairPlay;
  const disqualified = useDisqualified(tournamentId).byUsername;
  const name = (member: { userId: string; username?: string | null }) =>
    member.username ?? member.userId;
  return (
    <section className="details-fair-play" data-testid="fair-play-section">
      <Typography.Title level={5}>{i18n.t('fairPlay.title')}</Typography.Title>
      {loading && !report ? (
        <Space>
          <Spin aria-label={i18n.t('common.loading')} />
          <Typography.Text>{i18n.t('fairPlay.loading')}</Typography.Text>
        </Space>
      ) : !report || error ? (
        <Typography.Text type="secondary">{i18n.t('fairPlay.unavailable')}</Typography.Text>
      ) : (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Space wrap>
            <Tag color={report.final ? 'default' : 'processing'}>
              {report.final ? i18n.t('fairPlay.final') : i18n.t('fairPlay.live')}
            </Tag>
            <Typography.Text>
              {i18n.t('fairPlay.summary', {
                participants: report.participantCount,
                rounds: report.roundCount,
                clusters: report.clusters.length,
              })}
            </Typography.Text>
            {report.flagged.length > 0 && (
              <Tag color="red" data-testid="fair-play-flagged-count">
                {i18n.t('fairPlay.flaggedCount', { count: report.flagged.length })}
              </Tag>
            )}
          </Space>
          {report.clusters.length === 0 ? (
            <Empty description={i18n.t('fairPlay.none')} />
          ) : (
            report.clusters.map((cluster, index) => {
              const flagged = new Set(cluster.flaggedMembers.map((m) => m.userId));
              return (
                <Alert
                  key={index}
                  type={cluster.flagged ? 'error' : 'info'}
                  data-testid="fair-play-cluster"
                  data-flagged={cluster.flagged}
                  message={
                    <Space wrap>
                      <strong>
                        {i18n.t('fairPlay.cluster', { count: cluster.members.length })}
                      </strong>
                      <span>
                        {i18n.t('fairPlay.score', { score: formatNumber(cluster.score) })}
                      </span>
                      <Tag color={cluster.flagged ? 'red' : 'default'}>
                        {cluster.flagged
                          ? i18n.t('fairPlay.flagged')
                          : i18n.t('fairPlay.notFlagged')}
                      </Tag>
                    </Space>
                  }
                  description={
                    <Space direction="vertical" style={{ width: '100%' }}>
                      <div className="fair-play-members">
                        <Typography.Text type="secondary">
                          {i18n.t('fairPlay.members')}
                        </Typography.Text>{' '}
                        {cluster.members.map((member) => (
                          <FairPlayMember
                            key={member.userId}
                            tournamentId={tournamentId}
                            member={member}
                            flagged={flagged.has(member.userId)}
                            disqualified={disqualified.has(name(member))}
                          />
                        ))}
                      </div>
                      <Typography.Text strong>{i18n.t('fairPlay.evidence')}</Typography.Text>
                      <List
                        size="small"
                        dataSource={cluster.evidence}
                        renderItem={(evidence) => (
                          <List.Item>
                            <span lang="en" dir="ltr">
                              {evidence.text}
                            </span>
                          </List.Item>
                        )}
                      />
                    </Space>
                  }
                />
              );
            })
          )}
          <Typography.Text type="secondary">{i18n.t('fairPlay.note')}</Typography.Text>
        </Space>
      )}
    </section>
  );
}
