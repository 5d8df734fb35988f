import { List, Space, Tag, Typography } from 'antd';
import { i18n } from '../../../app/i18n';
import { useDisqualified } from './useDisqualified';

/** Issue 28: the details dialog's list of the participants an administrator disqualified. */
export function DisqualifiedList({ tournamentId }: { tournamentId: string }) {
  const { list } = useDisqualified(tournamentId);
  if (list.length === 0) return null;
  return (
    <section className="details-disqualified" data-testid="details-disqualified">
      <Typography.Title level={5}>
        {i18n.t('disqualify.listTitle', { count: list.length })}
      </Typography.Title>
      <List
        size="small"
        dataSource={list}
        renderItem={(entry) => (
          <List.Item>
            <Space wrap>
              <strong>{entry.username}</strong>
              <Tag color="red">{i18n.t('disqualify.disqualified')}</Tag>
              {entry.eliminatedInRound !== null && (
                <span>{i18n.t('details.roundShort', { round: entry.eliminatedInRound })}</span>
              )}
              <span className="disqualification-reason">
                {i18n.t('disqualify.reasonOf', { reason: entry.reason })}
              </span>
            </Space>
          </List.Item>
        )}
      />
    </section>
  );
}
