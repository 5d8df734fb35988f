import { useMutation, useQuery } from '@apollo/client';
import {
  App as AntApp,
  Button,
  Card,
  Col,
  Empty,
  List,
  Row,
  Space,
  Spin,
  Statistic,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { Navigate } from 'react-router-dom';
import { useToast } from '../../app/toast';
import {
  AdminAdvertisementsDocument,
  CreateAdvertisementDocument,
  CreateTournamentDocument,
  DeleteAdvertisementDocument,
  DeleteTournamentDocument,
  TournamentHistoryDocument,
  UpdateAdvertisementDocument,
  UpdateTournamentDocument,
  type AdFieldsFragment,
  type TournamentFieldsFragment,
} from '../../gql/operations';
import { useSession } from '../session/hooks/useSession';
import { useTournamentList } from '../tournaments/hooks/useTournamentList';
import { AdDialog } from './components/AdDialog';
import { DetailsDialog } from './components/DetailsDialog';
import { TournamentDialog } from './components/TournamentDialog';
import './admin.css';
import {
  durationOf,
  positionLabel,
  previewOf,
  statsOf,
  toLocalInput,
  type AdForm,
  type TournamentForm,
} from './validation';

type Dialog<T> = { open: false } | { open: true; item?: T };

const STATUS_COLOR: Record<string, string> = { live: 'red', upcoming: 'blue', finished: 'default' };

function tournamentInput(form: TournamentForm) {
  return {
    title: form.title.trim(),
    description: form.description.trim() || null,
    prize: form.prize.trim() || null,
    startAt: new Date(form.startAt).toISOString(),
  };
}

/**
 * The admin dashboard (/admin), loaded on demand so the home route never ships admin code.
 * Non-admins are sent to / (spec §2). Everything goes through GraphQL; the tournament list
 * follows the `tournamentsChanged` subscription and the history refreshes when a game finishes.
 */
export default function AdminPage() {
  const { user, loading, isAdmin } = useSession();
  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label="Loading" />
      </div>
    );
  }
  if (!isAdmin || !user) return <Navigate to="/" replace />;
  return <Dashboard name={user.displayName || user.username} />;
}

function Dashboard({ name }: { name: string }) {
  const toast = useToast();
  const { modal } = AntApp.useApp();
  const { tournaments, loading: listLoading, lastChange } = useTournamentList();
  const history = useQuery(TournamentHistoryDocument, { fetchPolicy: 'network-only' });
  const ads = useQuery(AdminAdvertisementsDocument, { fetchPolicy: 'network-only' });

  // A game that finishes (or a tournament deleted) changes the history.
  const { refetch: refetchHistory } = history;
  useEffect(() => {
    if (lastChange?.kind === 'finished' || lastChange?.kind === 'deleted') void refetchHistory();
  }, [lastChange, refetchHistory]);

  const [createTournament, creatingT] = useMutation(CreateTournamentDocument);
  const [updateTournament, updatingT] = useMutation(UpdateTournamentDocument);
  const [deleteTournament] = useMutation(DeleteTournamentDocument);
  const [createAd, creatingA] = useMutation(CreateAdvertisementDocument);
  const [updateAd, updatingA] = useMutation(UpdateAdvertisementDocument);
  const [deleteAd] = useMutation(DeleteAdvertisementDocument);

  const [tournamentDialog, setTournamentDialog] = useState<Dialog<TournamentFieldsFragment>>({
    open: false,
  });
  const [adDialog, setAdDialog] = useState<Dialog<AdFieldsFragment>>({ open: false });
  const [detailsId, setDetailsId] = useState<string>();

  const ok = (title: string) => toast({ title, variant: 'success' });
  const fail = (title: string) => toast({ title, variant: 'destructive' });
  const refetchTournaments = { refetchQueries: ['Tournaments'] };

  const saveTournament = async (form: TournamentForm) => {
    const editing = tournamentDialog.open ? tournamentDialog.item : undefined;
    const input = tournamentInput(form);
    if (editing) {
      // Spec §5: an unchanged start is sent as stored (it may have passed).
      const unchangedStart = form.startAt === toLocalInput(Date.parse(editing.startAt));
      try {
        await updateTournament({
          variables: {
            id: editing.id,
            input: { ...input, startAt: unchangedStart ? editing.startAt : input.startAt },
          },
          ...refetchTournaments,
        });
        ok('Tournament updated successfully.');
        setTournamentDialog({ open: false });
      } catch {
        fail('Failed to update tournament.');
      }
    } else {
      try {
        await createTournament({ variables: { input }, ...refetchTournaments });
        ok('Tournament created successfully.');
        setTournamentDialog({ open: false });
      } catch {
        fail('Failed to create tournament.');
      }
    }
  };

  const confirmDelete = (title: string, run: () => Promise<unknown>) =>
    modal.confirm({
      title: `Are you sure you want to delete "${title}"?`,
      okText: 'Delete',
      okButtonProps: { danger: true },
      onOk: run,
    });

  const removeTournament = (t: TournamentFieldsFragment) =>
    confirmDelete(t.title, async () => {
      try {
        await deleteTournament({ variables: { id: t.id }, ...refetchTournaments });
        ok('Tournament deleted successfully.');
      } catch {
        fail('Failed to delete tournament.');
      }
    });

  const saveAd = async (form: AdForm) => {
    const editing = adDialog.open ? adDialog.item : undefined;
    const fields = {
      title: form.title.trim(),
      type: form.type,
      content: form.content,
      displayPosition: form.displayPosition,
      duration: durationOf(form.duration),
    };
    if (editing) {
      try {
        await updateAd({
          variables: {
            id: editing.id,
            input: {
              ...fields,
              title: fields.title || undefined,
              content: fields.content || undefined,
              isActive: form.isActive,
            },
          },
        });
        await ads.refetch();
        ok('Advertisement updated successfully.');
        setAdDialog({ open: false });
      } catch {
        fail('Failed to update advertisement.');
      }
    } else {
      try {
        await createAd({ variables: { input: fields } });
        await ads.refetch();
        ok('Advertisement created successfully.');
        setAdDialog({ open: false });
      } catch {
        fail('Failed to create advertisement.');
      }
    }
  };

  const removeAd = (ad: AdFieldsFragment) =>
    confirmDelete(ad.title, async () => {
      try {
        await deleteAd({ variables: { id: ad.id } });
        await ads.refetch();
        ok('Advertisement deleted successfully.');
      } catch {
        fail('Failed to delete advertisement.');
      }
    });

  const stats = statsOf(tournaments);
  const managed = tournaments;
  const historyItems = history.data?.tournamentHistory ?? [];
  const adItems = ads.data?.adminAdvertisements ?? [];

  return (
    <div className="page admin-page">
      <Space direction="vertical" size="large" style={{ width: '100%' }}>
        <div>
          <Space wrap align="center">
            <Typography.Title level={2} style={{ margin: 0 }}>
              Admin Dashboard
            </Typography.Title>
            <Tag color="red">Admin</Tag>
          </Space>
          <Typography.Paragraph>Welcome, {name}</Typography.Paragraph>
        </div>

        <Row gutter={[12, 12]}>
          {(
            [
              ['Total Tournaments', stats.total],
              ['Live Tournaments', stats.live],
              ['Upcoming', stats.upcoming],
              ['Total Players', stats.players],
            ] as const
          ).map(([title, value]) => (
            <Col xs={12} md={6} key={title}>
              <Card>
                <Statistic title={title} value={value} />
              </Card>
            </Col>
          ))}
        </Row>

        <Card
          title="Tournament Management"
          extra={
            <Button type="primary" onClick={() => setTournamentDialog({ open: true })}>
              Create Tournament
            </Button>
          }
        >
          {listLoading ? (
            <Spin aria-label="Loading" />
          ) : managed.length === 0 ? (
            <Empty description="No tournaments found. Create your first tournament to get started." />
          ) : (
            <List
              dataSource={managed}
              renderItem={(t) => (
                <List.Item
                  data-testid={`tournament-${t.id}`}
                  actions={[
                    <Button
                      key="edit"
                      size="small"
                      onClick={() => setTournamentDialog({ open: true, item: t })}
                      aria-label={`Edit ${t.title}`}
                    >
                      Edit
                    </Button>,
                    <Button
                      key="delete"
                      size="small"
                      danger
                      disabled={t.status === 'live'}
                      onClick={() => {
                        removeTournament(t);
                      }}
                      aria-label={`Delete ${t.title}`}
                    >
                      Delete
                    </Button>,
                  ]}
                >
                  <List.Item.Meta
                    title={t.title}
                    description={
                      <Space wrap>
                        <span>{t.participantCount} players</span>
                        <span>{t.prize || 'No prize'}</span>
                        <Tag color={STATUS_COLOR[t.status]}>{t.status}</Tag>
                      </Space>
                    }
                  />
                </List.Item>
              )}
            />
          )}
        </Card>

        <Card title="Tournament History">
          {history.loading && !history.data ? (
            <Spin aria-label="Loading" />
          ) : historyItems.length === 0 ? (
            <Empty description="No finished tournaments yet" />
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
                      onClick={() => setDetailsId(item.tournament.id)}
                      aria-label={`View Details of ${item.tournament.title}`}
                    >
                      View Details
                    </Button>,
                  ]}
                >
                  <List.Item.Meta
                    title={item.tournament.title}
                    description={
                      <Space wrap>
                        <span>{new Date(item.endedAt).toLocaleDateString('en-US')}</span>
                        <span>Winner: {item.winner?.username ?? 'No winner'}</span>
                        <span>{item.tournament.prize || 'No prize'}</span>
                        <Tag color="green">Finished</Tag>
                      </Space>
                    }
                  />
                </List.Item>
              )}
            />
          )}
        </Card>

        <Card
          title="Advertisement Management"
          extra={
            <Button type="primary" onClick={() => setAdDialog({ open: true })}>
              Create Advertisement
            </Button>
          }
        >
          {ads.loading && !ads.data ? (
            <Spin aria-label="Loading" />
          ) : adItems.length === 0 ? (
            <Empty description="No advertisements found. Create your first advertisement to get started." />
          ) : (
            <List
              dataSource={adItems}
              renderItem={(ad) => (
                <List.Item
                  data-testid={`ad-${ad.id}`}
                  actions={[
                    <Button
                      key="edit"
                      size="small"
                      onClick={() => setAdDialog({ open: true, item: ad })}
                      aria-label={`Edit ${ad.title}`}
                    >
                      Edit
                    </Button>,
                    <Button
                      key="delete"
                      size="small"
                      danger
                      onClick={() => {
                        removeAd(ad);
                      }}
                      aria-label={`Delete ${ad.title}`}
                    >
                      Delete
                    </Button>,
                  ]}
                >
                  <List.Item.Meta
                    title={
                      <Space wrap>
                        <span>{ad.title}</span>
                        <Tag color={ad.isActive ? 'green' : 'default'}>
                          {ad.isActive ? 'Active' : 'Inactive'}
                        </Tag>
                      </Space>
                    }
                    description={
                      <Space direction="vertical" size={2}>
                        <Space wrap>
                          <span>{ad.type}</span>
                          <span>{positionLabel(ad.displayPosition)}</span>
                          <span>{ad.duration}s</span>
                        </Space>
                        <span className="ad-preview">{previewOf(ad.content)}</span>
                      </Space>
                    }
                  />
                </List.Item>
              )}
            />
          )}
        </Card>

        <Row gutter={[12, 12]}>
          <Col xs={24} md={12}>
            <Card title="System Settings">
              <Space direction="vertical" style={{ width: '100%' }}>
                <Button block>Tournament Settings</Button>
                <Button block>User Management</Button>
                <Button block>View System Logs</Button>
              </Space>
            </Card>
          </Col>
          <Col xs={24} md={12}>
            <Card title="Reports & Analytics">
              <Space direction="vertical" style={{ width: '100%' }}>
                <Button block>Tournament Statistics</Button>
                <Button block>User Analytics</Button>
                <Button block>Revenue Reports</Button>
              </Space>
            </Card>
          </Col>
        </Row>
      </Space>

      <TournamentDialog
        open={tournamentDialog.open}
        tournament={tournamentDialog.open ? tournamentDialog.item : undefined}
        pending={creatingT.loading || updatingT.loading}
        onCancel={() => setTournamentDialog({ open: false })}
        onSubmit={(form) => void saveTournament(form)}
      />
      <AdDialog
        open={adDialog.open}
        ad={adDialog.open ? adDialog.item : undefined}
        pending={creatingA.loading || updatingA.loading}
        onCancel={() => setAdDialog({ open: false })}
        onSubmit={(form) => void saveAd(form)}
      />
      <DetailsDialog tournamentId={detailsId} onClose={() => setDetailsId(undefined)} />
    </div>
  );
}
