import { useMutation, useQuery } from '@apollo/client';
import { useTranslation } from 'react-i18next';
import { Alert, Button, Card, Popover, Space, Spin, Tag, Typography } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import {
  CastVoteDocument,
  HasOfflineChoicesDocument,
  JoinTournamentDocument,
  TournamentDocument,
} from '../../gql/operations';
import { messageOf } from '../../app/errors';
import { useSocketStatus } from '../../app/socketStatus';
import { useToast } from '../../app/toast';
import { useGo } from '../../app/useGo';
import { useSession } from '../session/hooks/useSession';
import { useLogFailedOfflineChoicesCheck } from '../tournaments/hooks/useHasOfflineChoices';
import { OfflinePicker } from '../offline/components/OfflinePicker';
import { useServerNow } from '../time/hooks/serverClock';
import { isOfflineWindowOpen, type GameMode } from '../tournaments/display';
import { AdScreen } from './components/AdScreen';
import { DisqualifiedNotice } from './components/DisqualifiedNotice';
import { ResultsScreen } from './components/ResultsScreen';
import { RoundScreen } from './components/RoundScreen';
import { StatisticsView } from './components/StatisticsView';
import { TournamentHeader } from './components/TournamentHeader';
import { WinnerScreen } from './components/WinnerScreen';
import { useLiveGame } from './hooks/useLiveGame';
import { sendVoteRetrying } from './voteRetry';
import './game.css';
import { joinedLate, screenOf, type LiveGameView, type Viewer } from './state';

const MODES: GameMode[] = ['live', 'offline', 'watch', 'results'];

/** Reads `?mode=`; live is the default (spec §2). */
export function gameModeOf(search: URLSearchParams): GameMode {
  const mode = search.get('mode');
  return MODES.find((candidate) => candidate === mode) ?? 'live';
}

const MODE_LABEL: Record<GameMode, string> = {
  live: 'game.modeLive',
  offline: 'game.modeOffline',
  watch: 'game.modeWatch',
  results: 'game.modeResults',
};

/** How many characters of the tournament id the badge shows on a phone. */
const SHORT_ID_LENGTH = 4;

/**
 * The Tournament ID badge: the whole id on wide screens; on phones its first characters, the
 * whole id a tap away (a popover), so the round stays above the fold.
 */
function TournamentIdBadge({ id }: { id: string }) {
  const { t } = useTranslation();
  const short = id.length > SHORT_ID_LENGTH ? `${id.slice(0, SHORT_ID_LENGTH)}…` : id;
  return (
    <Popover content={<span className="tournament-id-full">{id}</span>} trigger="click">
      <button type="button" className="tournament-id">
        <span className="wide-only">{t('game.tournamentId', { id })}</span>
        <span className="narrow-only">{t('game.tournamentIdShort', { id: short })}</span>
      </button>
    </Popover>
  );
}

function AccessDenied() {
  const { t } = useTranslation();
  const go = useGo();
  return (
    <Card>
      <Space direction="vertical" align="center" style={{ width: '100%', textAlign: 'center' }}>
        <Typography.Title level={3}>{t('game.accessDenied')}</Typography.Title>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('game.loginRequired')}
        </Typography.Title>
        <Typography.Paragraph>{t('game.accessDeniedText')}</Typography.Paragraph>
        <Space wrap>
          <Button type="primary" onClick={() => go('/auth')}>
            {t('game.loginToContinue')}
          </Button>
          <Button onClick={() => go('/')}>{t('game.backToHome')}</Button>
        </Space>
      </Space>
    </Card>
  );
}

function Lobby({
  mode,
  game,
  hasChoices,
  onSetup,
}: {
  mode: GameMode;
  game: LiveGameView | undefined;
  hasChoices: boolean;
  /** Opens the offline setup (the 17-round picker); absent once the window is shut. */
  onSetup?: () => void;
}) {
  const { t } = useTranslation();
  const go = useGo();
  return (
    <Card className="lobby">
      <Space direction="vertical" style={{ width: '100%' }}>
        {mode === 'offline' ? (
          hasChoices ? (
            <>
              <Typography.Title level={4} style={{ margin: 0 }}>
                {t('game.preRegistered')}
              </Typography.Title>
              <Typography.Paragraph>{t('game.preRegistrationComplete')}</Typography.Paragraph>
            </>
          ) : (
            <Button type="primary" onClick={onSetup ?? (() => go('/offline'))}>
              {t('actions.preSubmit')}
            </Button>
          )
        ) : (
          <Typography.Title level={4} style={{ margin: 0 }}>
            {mode === 'watch' ? t('game.watching') : t('game.playing')}
          </Typography.Title>
        )}
        <Typography.Paragraph>{t('game.waiting')}</Typography.Paragraph>
        <Typography.Text>
          {t('common.players', { count: game?.participantCount ?? 0 })}
        </Typography.Text>
      </Space>
    </Card>
  );
}

/** The tournament play screen (/game/:id?mode=live|offline|watch|results), spec §2/§4. */
export default function GamePage() {
  const { id = '' } = useParams();
  const [search] = useSearchParams();
  const mode = gameModeOf(search);
  const go = useGo();
  const toast = useToast();
  const { t } = useTranslation();
  const { user, loading: sessionLoading } = useSession();
  const socket = useSocketStatus();
  const loggedIn = Boolean(user);

  const tournamentQuery = useQuery(TournamentDocument, { variables: { id }, skip: !id });
  const tournament = tournamentQuery.data?.tournament ?? undefined;
  const choicesQuery = useQuery(HasOfflineChoicesDocument, {
    variables: { tournamentId: id },
    skip: !loggedIn || mode !== 'offline',
  });
  useLogFailedOfflineChoicesCheck(choicesQuery.error);
  const hasChoices = choicesQuery.data?.hasOfflineChoices ?? false;
  const now = useServerNow(5_000);
  // Spec §2's offline-setup phase: a signed-in player arriving in offline mode (PLAY OFFLINE)
  // picks the 17 choices right here while the window is open; saving or cancelling shows the lobby.
  const [setupOpen, setSetupOpen] = useState(true);
  const canSetUp =
    mode === 'offline' &&
    Boolean(user?.isEmailVerified) &&
    choicesQuery.data !== undefined &&
    !hasChoices &&
    tournament !== undefined &&
    isOfflineWindowOpen(tournament, now);

  const live = mode === 'live' || mode === 'watch' || mode === 'offline';
  const { game, setOwnVote, setJoined } = useLiveGame(id, live && Boolean(id));

  // A signed-in player in live mode joins on arrival (server rules: while joining is open;
  // otherwise the first vote of round 1 joins, and anything later just watches).
  const [join] = useMutation(JoinTournamentDocument);
  const joined = useRef(false);
  useEffect(() => {
    if (mode !== 'live' || !user?.isEmailVerified || joined.current) return;
    joined.current = true;
    join({ variables: { tournamentId: id } }).then(
      ({ data }) => {
        if (data?.joinTournament.isParticipant) setJoined();
      },
      () => undefined,
    );
  }, [mode, user, id, join, setJoined]);

  const [castVote, { loading: voting }] = useMutation(CastVoteDocument);
  // What a retry checks before sending again: the round it was cast in still open, the socket up.
  const latest = useRef({ roundNumber: game?.roundNumber, socket });
  latest.current = { roundNumber: game?.roundNumber, socket };
  const onVote = useCallback(
    (imageId: string) => {
      if (!game || socket !== 'connected') return;
      const { roundNumber } = game;
      // A vote answered "not recorded yet" during a failover is sent again until a final answer,
      // so what the player is told agrees with the count (issue 29).
      sendVoteRetrying(() => castVote({ variables: { tournamentId: id, roundNumber, imageId } }), {
        stillCurrent: () =>
          latest.current.roundNumber === roundNumber && latest.current.socket === 'connected',
      }).then(
        ({ data }) => data && setOwnVote(data.castVote.imageId),
        (error: unknown) =>
          toast({
            title: t('game.voteNotRecorded'),
            // The server's text, e.g. 'Please verify your email address first' (or its code's
            // message in the user's language).
            description: messageOf(error, t('game.tryAgain')),
            variant: 'destructive',
          }),
      );
    },
    [castVote, game, id, setOwnVote, socket, t, toast],
  );

  const viewer: Viewer = { loggedIn, mode };
  let body: React.ReactNode;
  if (mode === 'offline' && !sessionLoading && !loggedIn) {
    body = <AccessDenied />;
  } else if (canSetUp && setupOpen && tournament) {
    body = (
      <OfflinePicker
        tournament={tournament}
        onDone={() => setSetupOpen(false)}
        onCancel={() => setSetupOpen(false)}
        screen="game"
      />
    );
  } else if (mode === 'results') {
    body = <StatisticsView tournamentId={id} />;
  } else if (!game) {
    body = (
      <div className="page-center">
        <Spin size="large" aria-label={t('common.loading')} />
      </div>
    );
  } else {
    switch (screenOf(game.phase)) {
      case 'game':
        body = <RoundScreen game={game} viewer={viewer} pending={voting} onVote={onVote} />;
        break;
      case 'results':
        body = <ResultsScreen game={game} />;
        break;
      case 'advertisement':
        body = <AdScreen game={game} />;
        break;
      case 'winner':
        body = (
          <WinnerScreen
            game={game}
            viewer={user ? { id: user.id, username: user.username } : null}
          />
        );
        break;
      case 'lobby':
        body = (
          <Lobby
            mode={mode}
            game={game}
            hasChoices={hasChoices}
            onSetup={canSetUp ? () => setSetupOpen(true) : undefined}
          />
        );
    }
  }

  return (
    <div className="page game-page">
      <Space direction="vertical" style={{ width: '100%' }} size="middle">
        <div className="game-topbar">
          <Button onClick={() => go('/')}>{t('game.backToHome')}</Button>
          <TournamentIdBadge id={id} />
          <Tag color="purple" className="mode-badge">
            {t(MODE_LABEL[mode])}
          </Tag>
        </div>
        {socket === 'reconnecting' && live && (
          <Alert type="warning" showIcon message={t('header.reconnecting')} role="status" />
        )}
        {tournament && mode !== 'results' && !(mode === 'offline' && !loggedIn) && (
          <TournamentHeader
            tournament={tournament}
            roundNumber={game?.roundNumber ?? 0}
            // Spec §6: the play screen's header is passed isAdmin false (admins manage from /admin).
            isAdmin={false}
            playerCount={game?.participantCount ?? tournament.participantCount}
            finished={game?.phase === 'finished'}
          />
        )}
        {game && mode !== 'results' && <DisqualifiedNotice game={game} />}
        {/* The round screen says it under its options; the results and the ad say it here. */}
        {game && joinedLate(game, viewer) && screenOf(game.phase) !== 'game' && (
          <Alert type="info" showIcon message={t('game.messageJoinedLate')} role="status" />
        )}
        {body}
      </Space>
    </div>
  );
}
