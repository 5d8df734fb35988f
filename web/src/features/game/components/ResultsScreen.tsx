import { Card, Space, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { RESULTS_AUTO_ADVANCE_MS, resultRowsOf, type LiveGameView } from '../state';

/** Spec §2 round results as a bar chart: each image's votes, percentage and outcome. */
export function ResultsScreen({ game }: { game: LiveGameView }) {
  const rows = resultRowsOf(game.images, game.results, game.player?.voteImageId);
  // Spec §4: results auto-advance after 4 s; the server then starts the ad or the next round.
  const [advancing, setAdvancing] = useState(false);
  useEffect(() => {
    setAdvancing(false);
    const timer = setTimeout(() => setAdvancing(true), RESULTS_AUTO_ADVANCE_MS);
    return () => clearTimeout(timer);
  }, [game.roundNumber]);
  return (
    <Card className="results-screen" size="small">
      <Space direction="vertical" style={{ width: '100%' }} size="small">
        <div className="results-head">
          <Typography.Title level={3} className="round-title">
            Round {game.roundNumber} Results
          </Typography.Title>
          <Typography.Text>{game.totalVotes} votes</Typography.Text>
        </div>
        <ol className="result-bars" aria-label="Round results">
          {rows.map((row) => (
            <li key={row.imageId} className="result-row">
              <img src={row.url} alt={row.alt} className="result-thumb" />
              <div className="result-bar-wrap">
                <div className="result-label">
                  <span>
                    Option {row.option}
                    {row.isOwnVote ? ' (your vote)' : ''}
                  </span>
                  <span>
                    {row.votes} votes · {row.percentage}%
                  </span>
                </div>
                <div className="result-bar-track">
                  <div
                    className={row.outcome === 'ADVANCED' ? 'result-bar advanced' : 'result-bar'}
                    style={{ width: `${row.percentage}%` }}
                  />
                </div>
              </div>
              <Tag color={row.outcome === 'ADVANCED' ? 'green' : 'red'}>{row.outcome}</Tag>
            </li>
          ))}
        </ol>
        {game.player?.isParticipant && (
          <Tag color={game.player.isEliminated ? 'red' : 'green'} className="own-outcome">
            {game.player.isEliminated ? 'ELIMINATED' : 'ADVANCED'}
          </Tag>
        )}
        {advancing && game.roundNumber < game.totalRounds && (
          <Typography.Text type="secondary">Next round starting automatically...</Typography.Text>
        )}
      </Space>
    </Card>
  );
}
