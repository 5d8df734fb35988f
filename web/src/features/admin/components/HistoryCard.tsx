import { Button, Card, Empty, List, Space, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../app/i18n';
import type { TournamentHistoryQuery } from '../../../gql/operations';
import { PrizePaidControl, PrizePaidMark } from './PrizePaidControl';

/**
 * The dashboard's history (/admin): finished games with their winner (flagged when the fair-play
 * report names them), their details and the prize payment.
 */
export function HistoryCard({
  history,
  onDetails,
  onPaid,
}: {
  history: { loading: boolean; data?: TournamentHistoryQuery | undefined };
  onDetails: (id: string) => void;
  /** A prize payment was confirmed. */
  onPaid: () => void;
}) {
  const { t: translate } = useTranslation();
  const historyItems = history.data?.tournamentHistory ?? [];
  return (
    <Card title={translate('admin.history')}>
      {history.loading && !history.data ? (
        <Spin aria-label={translate('common.loading')} />
      ) : historyItems.length === 0 ? (
        <Empty description={translate('admin.noHistory')} />
      ) : (
        <List
          dataSource={historyItems}
          renderItem={(item) => (
            <List.Item
              data-testid={`history-${item.tournament.id}`}
              actions={[
                <Button
                  key="details"
                  size="small"
                  onClick={() => onDetails(item.tournament.id)}
                  aria-label={translate('admin.viewDetailsOf', {
                    title: item.tournament.title,
                  })}
                >
                  {translate('admin.viewDetails')}
                </Button>,
                <PrizePaidControl
                  key="paid"
                  tournamentId={item.tournament.id}
                  title={item.tournament.title}
                  winner={item.winner?.username}
                  payment={item.prizePayment}
                  onConfirmed={onPaid}
                />,
              ]}
            >
              <List.Item.Meta
                title={item.tournament.title}
                description={
                  <Space wrap>
                    <span>
                      {formatDateTime(new Date(item.endedAt), {
                        year: 'numeric',
                        month: 'numeric',
                        day: 'numeric',
                      })}
                    </span>
                    <span>
                      {translate('admin.winner', {
                        name: item.winner?.username ?? translate('admin.noWinner'),
                      })}
                    </span>
                    {item.winnerFlagged && (
                      <Tag color="red" data-testid="winner-flagged">
                        {translate('fairPlay.winnerFlagged')}
                      </Tag>
                    )}
                    <span>{item.tournament.prize || translate('common.noPrize')}</span>
                    <Tag color="green">{translate('admin.finished')}</Tag>
                    <PrizePaidMark payment={item.prizePayment} />
                  </Space>
                }
              />
            </List.Item>
          )}
        />
      )}
    </Card>
  );
}
