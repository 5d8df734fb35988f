import { altOf } from '../../images/sampleImages';
import { Alert, Badge, Card, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../../app/i18n';
import { useEffect } from 'react';
import { useCountdown } from '../../time/hooks/serverClock';
import {
  canVote,
  roundMessageKindOf,
  roundMessageOf,
  type LiveGameView,
  type Viewer,
} from '../state';
import { useSmoothCount } from '../hooks/useSmoothCount';
import { RoundCountdown } from './RoundCountdown';

export interface RoundScreenProps {
  game: LiveGameView;
  viewer: Viewer;
  pending: boolean;
  onVote(imageId: string): void;
}

/** Spec §2 round screen: headline, counts, LIVE badge, clock, four options, the message. */
export function RoundScreen({ game, viewer, pending, onVote }: RoundScreenProps) {
  const { t } = useTranslation();
  const endsAt = game.phaseEndsAt ? Date.parse(game.phaseEndsAt) : 0;
  const remainingMs = useCountdown(endsAt, 250);
  const votable = canVote(game, viewer, remainingMs) && !pending;
  const offline = Boolean(game.player?.isOfflinePlayer);
  // The live total moves between the gateway's updates (every few seconds in a large game).
  const totalVotes = useSmoothCount(game.totalVotes);

  // Keys 1-4 vote (beyond the spec, as users expect).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const index = Number(event.key) - 1;
      if (!votable || !Number.isInteger(index) || index < 0 || index >= game.images.length) return;
      const target = event.target as HTMLElement | null;
      if (target && ['INPUT', 'TEXTAREA'].includes(target.tagName)) return;
      onVote(game.images[index]!.id);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [votable, game.images, onVote]);

  const message = roundMessageOf(game, viewer, remainingMs);
  const messageKind = roundMessageKindOf(game, viewer, remainingMs);
  const missed = messageKind === 'missed';
  return (
    <Card className="round-screen" size="small">
      <div className="round-head">
        <Typography.Title level={3} className="round-title">
          {t('game.round', { round: game.roundNumber })}
        </Typography.Title>
        <Tag color="red">{t('game.live')}</Tag>
        <span className="round-counts">
          <Badge color="#7c3aed" text={t('common.players', { count: game.remainingCount })} />
          <Badge
            color="#0ea5e9"
            text={t('game.preRegisteredCount', { count: game.offlineParticipantCount })}
          />
          <Badge color="#16a34a" text={t('common.votes', { count: totalVotes })} />
        </span>
      </div>
      <Typography.Title level={4} className="round-headline">
        {offline ? t('game.headlineOffline') : t('game.headline')}
      </Typography.Title>
      {game.phase === 'voting_ended' ? (
        <Alert type="info" showIcon message={t('game.processing')} className="round-processing" />
      ) : (
        <RoundCountdown endsAt={endsAt} totalSeconds={game.roundTimeSeconds} />
      )}
      <div className="image-grid">
        {game.images.map((image, index) => {
          const chosen = game.player?.voteImageId === image.id;
          return (
            <button
              key={image.id}
              type="button"
              className={chosen ? 'image-option chosen' : 'image-option'}
              disabled={!votable}
              aria-pressed={chosen}
              // The pick's label is drawn by CSS from this (game.css): screen readers hear
              // aria-pressed, and the button's name stays its option.
              data-pick={
                chosen ? (offline ? t('game.preSelectedPick') : t('game.yourPick')) : undefined
              }
              aria-label={t('game.option', { option: index + 1, alt: altOf(image) })}
              onClick={() => onVote(image.id)}
            >
              <img src={image.url} alt={altOf(image)} />
              <span className="image-option-key">{formatNumber(index + 1)}</span>
            </button>
          );
        })}
      </div>
      {/* The message's room is kept while empty, so nothing moves when the choice locks in. */}
      <div className="round-message">
        {message && (
          <Alert type={missed ? 'warning' : 'info'} message={message} banner showIcon={false} />
        )}
        {game.player?.isEliminated && <Tag color="red">{t('game.eliminated')}</Tag>}
      </div>
    </Card>
  );
}
