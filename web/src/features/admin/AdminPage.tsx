import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../app/i18n';
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
import { AuditLogSection } from './components/AuditLogSection';
import { DetailsDialog } from './components/DetailsDialog';
import { PrizePaidControl, PrizePaidMark } from './components/PrizePaidControl';
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
  const { t: translate } = useTranslation();
  const { user, loading, isAdmin } = useSession();
  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label={translate('common.loading')} />
      </div>
    );
  }
  if (!isAdmin || !user) return <Navigate to="/" replace />;
  return <Dashboard name={user.displayName || user.username} />;
}

function Dashboard({ name }: { name: string }) {
  const { t: translate } = useTranslation();
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

  // Each successful change refreshes the audit log's first page (AuditLogSection).
  const [changes, setChanges] = useState(0);
  const ok = (title: string) => {
    toast({ title, variant: 'success' });
    setChanges((count) => count + 1);
  };
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
        ok(translate('admin.updatedTournament'));
        setTournamentDialog({ open: false });
      } catch {
        fail(translate('admin.updateTournamentFailed'));
      }
    } else {
      try {
        await createTournament({ variables: { input }, ...refetchTournaments });
        ok(translate('admin.createdTournament'));
        setTournamentDialog({ open: false });
      } catch {
        fail(translate('admin.createTournamentFailed'));
      }
    }
  };

  const confirmDelete = (title: string, run: () => Promise<unknown>) =>
    modal.confirm({
      title: translate('admin.confirmDelete', { title }),
      okText: translate('admin.delete'),
      okButtonProps: { danger: true },
      onOk: run,
    });

  const removeTournament = (t: TournamentFieldsFragment) =>
    confirmDelete(t.title, async () => {
      try {
        await deleteTournament({ variables: { id: t.id }, ...refetchTournaments });
        ok(translate('admin.deletedTournament'));
      } catch {
        fail(translate('admin.deleteTournamentFailed'));
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
        ok(translate('admin.updatedAd'));
        setAdDialog({ open: false });
      } catch {
        fail(translate('admin.updateAdFailed'));
      }
    } else {
      try {
        await createAd({ variables: { input: fields } });
        await ads.refetch();
        ok(translate('admin.createdAd'));
        setAdDialog({ open: false });
      } catch {
        fail(translate('admin.createAdFailed'));
      }
    }
  };

  const removeAd = (ad: AdFieldsFragment) =>
    confirmDelete(ad.title, async () => {
      try {
        await deleteAd({ variables: { id: ad.id } });
        await ads.refetch();
        ok(translate('admin.deletedAd'));
      } catch {
        fail(translate('admin.deleteAdFailed'));
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
              {translate('admin.title')}
            </Typography.Title>
            <Tag color="red">{translate('admin.badge')}</Tag>
          </Space>
          <Typography.Paragraph>{translate('admin.welcome', { name })}</Typography.Paragraph>
        </div>

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

        <Card
          title={translate('admin.tournamentManagement')}
          extra={
            <Button type="primary" onClick={() => setTournamentDialog({ open: true })}>
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
                            onClick={() => setDetailsId(t.id)}
                            aria-label={translate('admin.viewDetailsOf', { title: t.title })}
                          >
                            {translate('admin.viewDetails')}
                          </Button>,
                        ]
                      : []),
                    <Button
                      key="edit"
                      size="small"
                      onClick={() => setTournamentDialog({ open: true, item: t })}
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
                        removeTournament(t);
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
                      onClick={() => setDetailsId(item.tournament.id)}
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
                      onConfirmed={() => {
                        void refetchHistory();
                        setChanges((count) => count + 1);
                      }}
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

        <Card
          title={translate('admin.adManagement')}
          extra={
            <Button type="primary" onClick={() => setAdDialog({ open: true })}>
              {translate('admin.createAd')}
            </Button>
          }
        >
          {ads.loading && !ads.data ? (
            <Spin aria-label={translate('common.loading')} />
          ) : adItems.length === 0 ? (
            <Empty description={translate('admin.noAds')} />
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
                      aria-label={translate('admin.editNamed', { title: ad.title })}
                    >
                      {translate('admin.edit')}
                    </Button>,
                    <Button
                      key="delete"
                      size="small"
                      danger
                      onClick={() => {
                        removeAd(ad);
                      }}
                      aria-label={translate('admin.deleteNamed', { title: ad.title })}
                    >
                      {translate('admin.delete')}
                    </Button>,
                  ]}
                >
                  <List.Item.Meta
                    title={
                      <Space wrap>
                        <span>{ad.title}</span>
                        <Tag color={ad.isActive ? 'green' : 'default'}>
                          {ad.isActive ? translate('admin.active') : translate('admin.inactive')}
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

        <AuditLogSection changeCount={changes} />

        <Row gutter={[12, 12]}>
          <Col xs={24} md={12}>
            <Card title={translate('admin.systemSettings')}>
              <Space direction="vertical" style={{ width: '100%' }}>
                <Button block>{translate('admin.tournamentSettings')}</Button>
                <Button block>{translate('admin.userManagement')}</Button>
                <Button block>{translate('admin.systemLogs')}</Button>
              </Space>
            </Card>
          </Col>
          <Col xs={24} md={12}>
            <Card title={translate('admin.reports')}>
              <Space direction="vertical" style={{ width: '100%' }}>
                <Button block>{translate('admin.tournamentStatistics')}</Button>
                <Button block>{translate('admin.userAnalytics')}</Button>
                <Button block>{translate('admin.revenueReports')}</Button>
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
