import { Button, Card, Empty, List, Space, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TournamentFieldsFragment } from '../../../gql/operations';

const STATUS_COLOR: Record<string, string> = { live: 'red', upcoming: 'blue', finished: 'default' };

/**
 * The dashboard's tournament management (/admin): every tournament with its edit and delete
 * buttons, and a live game's details (its fair-play report and disqualifications, issue 28).
 */
export function TournamentsCard({
  tournaments: managed,
  loading: listLoading,
  onCreate,
  onDetails,
  onEdit,
  onDelete,
}: {
  tournaments: TournamentFieldsFragment[];
  loading: boolean;
  onCreate: () => void;
  onDetails: (id: string) => void;
  onEdit: (tournament: TournamentFieldsFragment) => void;
  onDelete: (tournament: TournamentFieldsFragment) => void;
}) {
  const { t: translate } = useTranslation();
  return (
    <Card
      title={translate('admin.tournamentManagement')}
      extra={
        <Button type="primary" onClick={onCreate}>
          {translate('admin.createTournament')}
        </Button>
      }
    >
      {listLoading ? (
        <Spin aria-label={translate('common.loading')} />
      ) : managed.length === 0 ? (
        <Empty description={translate('admin.noTournaments')} />
      ) : (
        <List
          dataSource={managed}
          renderItem={(t) => (
            <List.Item
              data-testid={`tournament-${t.id}`}
              actions={[
                // A live game's details: its fair-play report and disqualifications (issue 28).
                ...(t.status === 'live'
                  ? [
                      <Button
                        key="details"
                        size="small"
                        onClick={() => onDetails(t.id)}
                        aria-label={translate('admin.viewDetailsOf', { title: t.title })}
                      >
                        {translate('admin.viewDetails')}
                      </Button>,
                    ]
                  : []),
                <Button
                  key="edit"
                  size="small"
                  onClick={() => onEdit(t)}
                  aria-label={translate('admin.editNamed', { title: t.title })}
                >
                  {translate('admin.edit')}
                </Button>,
                <Button
                  key="delete"
                  size="small"
                  danger
                  disabled={t.status === 'live'}
                  onClick={() => {
                    onDelete(t);
                  }}
                  aria-label={translate('admin.deleteNamed', { title: t.title })}
                >
                  {translate('admin.delete')}
                </Button>,
              ]}
            >
              <List.Item.Meta
                title={t.title}
                description={
                  <Space wrap>
                    <span>{translate('common.players', { count: t.participantCount })}</span>
                    <span>{t.prize || translate('common.noPrize')}</span>
                    <Tag color={STATUS_COLOR[t.status]}>{t.status}</Tag>
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
