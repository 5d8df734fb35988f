import { Button, Card, Space, Tag, Typography } from 'antd';
import { TrophyOutlined } from '@ant-design/icons';
import { useGo } from '../../../app/useGo';
import type { LiveGameView } from '../state';

/** Spec §2 winner screen (finished phase): CHAMPION! or the no-winner text. */
export function WinnerScreen({ game }: { game: LiveGameView }) {
  const go = useGo();
  const winner = game.winner;
  return (
    <Card className="winner-screen">
      <Space direction="vertical" align="center" style={{ width: '100%', textAlign: 'center' }}>
        <Typography.Title level={3}>Tournament Complete!</Typography.Title>
        {winner ? (
          <>
            <TrophyOutlined style={{ fontSize: 48, color: '#f59e0b' }} aria-hidden />
            <Typography.Title level={2} style={{ margin: 0 }}>
              CHAMPION!
            </Typography.Title>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {winner.username || 'Unknown Player'}
            </Typography.Title>
            {winner.prize && <Tag color="gold">{winner.prize}</Tag>}
          </>
        ) : (
          <Typography.Paragraph>Check results page for final standings</Typography.Paragraph>
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
