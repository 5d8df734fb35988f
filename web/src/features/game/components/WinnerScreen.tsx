import { Button, Card, Space, Tag, Typography } from 'antd';
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
              CHAMPION!
            </Typography.Title>
            <Typography.Title level={3} style={{ margin: 0 }}>
              {viewer?.username || 'Unknown Player'}
            </Typography.Title>
            {winner?.prize && <Tag color="gold">{winner.prize}</Tag>}
          </>
        ) : (
          <>
            <Typography.Title level={2} style={{ margin: 0 }}>
              Tournament Complete!
            </Typography.Title>
            {winner ? (
              <Typography.Paragraph className="winner-name">
                Winner: <strong>{winner.username || 'Unknown Player'}</strong>
                {winner.prize ? ` · ${winner.prize}` : ''}
              </Typography.Paragraph>
            ) : (
              <Typography.Paragraph>Check results page for final standings</Typography.Paragraph>
            )}
          </>
        )}
        {game.player?.isParticipant && game.player.isEliminated && (
          <Tag color="red">ELIMINATED in round {game.player.eliminatedInRound}</Tag>
        )}
        <Space wrap>
          <Button onClick={() => go('/')}>Home</Button>
          <Button type="primary" onClick={() => go('/tournaments')}>
            Join Another Tournament
          </Button>
        </Space>
      </Space>
    </Card>
  );
}
