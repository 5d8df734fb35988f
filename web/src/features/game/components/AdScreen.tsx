import { Card, Progress, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCountdown } from '../../time/hooks/serverClock';
import {
  FALLBACK_AD_SECONDS,
  fallbackAdText,
  isFinalRound,
  progressPercent,
  secondsLeft,
  type LiveGameView,
} from '../state';

type Ad = NonNullable<LiveGameView['advertisement']>;

function AdContent({ ad }: { ad: Ad }) {
  switch (ad.type) {
    case 'image':
      return <img src={ad.content} alt={ad.title} className="ad-media" />;
    case 'video':
      return (
        <video
          src={ad.content}
          className="ad-media"
          autoPlay
          muted
          playsInline
          aria-label={ad.title}
        />
      );
    case 'html':
      // Admin markup runs in a sandbox: no scripts, no same-origin access.
      return <iframe title={ad.title} srcDoc={ad.content} sandbox="" className="ad-frame" />;
    case 'text':
      return <Typography.Paragraph>{ad.content}</Typography.Paragraph>;
  }
}

/**
 * Spec §2 ad display: the badge, seconds remaining, progress and the automatic-next note (after
 * the game's final round, that the winner comes next instead).
 */
export function AdScreen({ game }: { game: LiveGameView }) {
  const endsAt = game.phaseEndsAt ? Date.parse(game.phaseEndsAt) : 0;
  const { t } = useTranslation();
  const remainingMs = useCountdown(endsAt, 250);
  // The after-game ad (or any ad once the final round is over): the winner comes next.
  const afterGame = game.advertisement?.displayPosition === 'after_game' || isFinalRound(game);
  const ad: Ad = game.advertisement ?? {
    id: 'fallback',
    title: t('game.adWelcomeTitle'),
    type: 'text',
    content: fallbackAdText(),
    displayPosition: 'between_rounds',
    isActive: true,
    duration: FALLBACK_AD_SECONDS,
  };
  return (
    <Card className="ad-screen">
      <Space direction="vertical" style={{ width: '100%' }}>
        <Space style={{ justifyContent: 'space-between', width: '100%' }}>
          <Tag color="gold">{t('game.advertisement')}</Tag>
          <Typography.Text role="timer">
            {t('game.adRemaining', { count: secondsLeft(remainingMs) })}
          </Typography.Text>
        </Space>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {ad.title}
        </Typography.Title>
        <AdContent ad={ad} />
        <Progress
          percent={progressPercent(remainingMs, ad.duration)}
          showInfo={false}
          aria-label={t('game.adProgress')}
        />
        <Typography.Text type="secondary">
          {afterGame ? t('game.adNextFinal') : t('game.adNext')}
        </Typography.Text>
      </Space>
    </Card>
  );
}
