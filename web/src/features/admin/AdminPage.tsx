import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@apollo/client';
import { App as AntApp, Button, Card, Col, Row, Space, Spin, Tag, Typography } from 'antd';
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
import { AdsCard } from './components/AdsCard';
import { AuditLogSection } from './components/AuditLogSection';
import { DetailsDialog } from './components/DetailsDialog';
import { HistoryCard } from './components/HistoryCard';
import { StatsRow } from './components/StatsRow';
import { TournamentDialog } from './components/TournamentDialog';
import { TournamentsCard } from './components/TournamentsCard';
import './admin.css';
import { durationOf, toLocalInput, type AdForm, type TournamentForm } from './validation';

type Dialog<T> = { open: false } | { open: true; item?: T };

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

        <StatsRow tournaments={tournaments} />

        <TournamentsCard
          tournaments={tournaments}
          loading={listLoading}
          onCreate={() => setTournamentDialog({ open: true })}
          onDetails={setDetailsId}
          onEdit={(t) => setTournamentDialog({ open: true, item: t })}
          onDelete={(t) => {
            removeTournament(t);
          }}
        />

        <HistoryCard
          history={history}
          onDetails={setDetailsId}
          onPaid={() => {
            void refetchHistory();
            setChanges((count) => count + 1);
          }}
        />

        <AdsCard
          ads={ads}
          onCreate={() => setAdDialog({ open: true })}
          onEdit={(ad) => setAdDialog({ open: true, item: ad })}
          onDelete={(ad) => {
            removeAd(ad);
          }}
        />

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
