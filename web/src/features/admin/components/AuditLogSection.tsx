import { NetworkStatus, useQuery } from '@apollo/client';
import { Button, Card, Empty, List, Space, Spin, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { formatDateTime, i18n } from '../../../app/i18n';
import { AdminActionsDocument } from '../../../gql/operations';

const PAGE = 20;

// By what was done (colours whose text passes axe's contrast check).
const ACTION_COLOR: Record<string, string> = {
  tournamentCreated: 'blue',
  tournamentUpdated: 'geekblue',
  tournamentDeleted: 'red',
  advertisementCreated: 'blue',
  advertisementUpdated: 'geekblue',
  advertisementDeleted: 'red',
  participantDisqualified: 'red',
  prizePaidConfirmed: 'green',
};

/** The action's label; an action this build does not know shows its name as is. */
function actionLabel(action: string): string {
  const key = `audit.action${action.charAt(0).toUpperCase()}${action.slice(1)}`;
  return i18n.exists(key) ? i18n.t(key) : action;
}

/**
 * Issue 28 §4: every administrator's action (tournaments, ads, disqualifications, prize
 * payments) as the audit log stored it — who, when, what — newest first, older pages on demand.
 * `changeCount` (the dashboard's count of its own successful changes) refreshes the first page,
 * so an action just taken shows without a reload.
 */
export function AuditLogSection({ changeCount }: { changeCount: number }) {
  const { data, loading, error, fetchMore, refetch, networkStatus } = useQuery(
    AdminActionsDocument,
    {
      variables: { limit: PAGE },
      fetchPolicy: 'network-only',
      notifyOnNetworkStatusChange: true,
    },
  );
  useEffect(() => {
    if (changeCount > 0) void refetch({ limit: PAGE, before: null });
  }, [changeCount, refetch]);
  const page = data?.adminActions;
  const actions = page?.actions ?? [];
  const more = () =>
    fetchMore({
      variables: { limit: PAGE, before: page?.nextBefore },
      updateQuery: (previous, { fetchMoreResult }) => ({
        adminActions: {
          ...fetchMoreResult.adminActions,
          actions: [...previous.adminActions.actions, ...fetchMoreResult.adminActions.actions],
        },
      }),
    });
  return (
    <Card
      title={i18n.t('audit.title')}
      data-testid="audit-log"
      extra={
        <Button size="small" onClick={() => void refetch({ limit: PAGE, before: null })}>
          {i18n.t('audit.refresh')}
        </Button>
      }
    >
      {loading && !page ? (
        <Spin aria-label={i18n.t('common.loading')} />
      ) : error && !page ? (
        <Typography.Text type="secondary">{i18n.t('audit.unavailable')}</Typography.Text>
      ) : actions.length === 0 ? (
        <Empty description={i18n.t('audit.empty')} />
      ) : (
        <List
          dataSource={actions}
          renderItem={(item) => (
            <List.Item data-testid="audit-entry" data-action={item.action}>
              <Space direction="vertical" size={2} style={{ minWidth: 0, width: '100%' }}>
                <Space wrap size={[8, 2]}>
                  <Tag color={ACTION_COLOR[item.action] ?? 'default'}>
                    {actionLabel(item.action)}
                  </Tag>
                  <Typography.Text strong>
                    {item.actor.username || item.actor.userId || i18n.t('audit.visitor')}
                  </Typography.Text>
                  <Typography.Text type="secondary">
                    <time dateTime={item.occurredAt}>
                      {formatDateTime(new Date(item.occurredAt), {
                        dateStyle: 'medium',
                        timeStyle: 'medium',
                      })}
                    </time>
                  </Typography.Text>
                </Space>
                <Typography.Text className="audit-summary">{item.summary}</Typography.Text>
              </Space>
            </List.Item>
          )}
        />
      )}
      {page?.nextBefore && (
        <Button
          block
          style={{ marginTop: 8 }}
          loading={networkStatus === NetworkStatus.fetchMore}
          onClick={() => void more()}
        >
          {i18n.t('audit.loadMore')}
        </Button>
      )}
    </Card>
  );
}
