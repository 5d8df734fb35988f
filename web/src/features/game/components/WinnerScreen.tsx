import { Button, Card, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { TrophyOutlined } from '@ant-design/icons';
import { useGo } from '../../../app/useGo';
import type { LiveGameView } from '../state';

/** The signed-in user looking at the screen (null for a visitor). */
export interface WinnerScreenViewer {
  id: string;
  username: string;
}

/**
 * Spec §2 winner screen (finished phase). The winner sees 'CHAMPION!' with their own username
 * (or 'Unknown Player'); everyone else sees the finished display, 'Tournament Complete!' with the
 * winner's name, or the results-page hint when the game ended without a winner.
 */
export function WinnerScreen({
  game,
  viewer,
}: {
  game: LiveGameView;
  viewer: WinnerScreenViewer | null;
}) {
  const { t } = useTranslation();
  const go = useGo();
  const winner = game.winner;
  const isChampion = Boolean(winner && viewer && winner.userId === viewer.id);
  return (
    <Card className="winner-screen">
      <Space direction="vertical" align="center" style={{ width: '100%', textAlign: 'center' }}>
        {isChampion ? (
          <>
            <TrophyOutlined style={{ fontSize: 48, color: '#b45309' }} aria-hidden />
            <Typography.Title level={2} style={{ margin: 0 }}>
              {t('game.champion')}
            </Typography.Title>
            <Typography.Title level={3} style={{ margin: 0 }}>
              {viewer?.username || t('game.unknownPlayer')}
            </Typography.Title>
            {winner?.prize && <Tag color="gold">{winner.prize}</Tag>}
          </>
        ) : (
          <>
            <Typography.Title level={2} style={{ margin: 0 }}>
              {t('game.tournamentComplete')}
            </Typography.Title>
            {winner ? (
              <Typography.Paragraph className="winner-name">
                {t('game.winner')}
                <strong>{winner.username || t('game.unknownPlayer')}</strong>
                {winner.prize ? ` · ${winner.prize}` : ''}
              </Typography.Paragraph>
            ) : (
              <Typography.Paragraph>{t('game.checkResults')}</Typography.Paragraph>
            )}
          </>
        )}
        {game.player?.isParticipant && game.player.isEliminated && (
          <Tag color="red">
            {t('game.eliminatedInRound', { round: game.player.eliminatedInRound })}
          </Tag>
        )}
        <Space wrap>
          <Button onClick={() => go('/')}>{t('game.home')}</Button>
          <Button type="primary" onClick={() => go('/tournaments')}>
            {t('game.joinAnother')}
          </Button>
        </Space>
      </Space>
    </Card>
  );
}
