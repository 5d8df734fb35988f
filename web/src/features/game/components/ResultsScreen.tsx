import { altOf } from '../../images/sampleImages';
import { Card, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useEffect, useState } from 'react';
import { RESULTS_AUTO_ADVANCE_MS, isFinalRound, resultRowsOf, type LiveGameView } from '../state';

/** Spec §2 round results as a bar chart: each image's votes, percentage and outcome. */
export function ResultsScreen({ game }: { game: LiveGameView }) {
  const { t } = useTranslation();
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
            {t('game.resultsTitle', { round: game.roundNumber })}
          </Typography.Title>
          <Typography.Text>{t('common.votes', { count: game.totalVotes })}</Typography.Text>
        </div>
        <ol className="result-bars" aria-label={t('game.resultsLabel')}>
          {rows.map((row) => (
            <li key={row.imageId} className="result-row">
              <img src={row.url} alt={altOf(row)} className="result-thumb" />
              <div className="result-bar-wrap">
                <div className="result-label">
                  <span>
                    {t('game.resultOption', { option: row.option })}
                    {row.isOwnVote ? t('game.yourVote') : ''}
                  </span>
                  <span>
                    {t('game.resultVotes', { votes: row.votes, percentage: row.percentage })}
                  </span>
                </div>
                <div className="result-bar-track">
                  <div
                    className={row.outcome === 'ADVANCED' ? 'result-bar advanced' : 'result-bar'}
                    style={{ width: `${row.percentage}%` }}
                  />
                </div>
              </div>
              <Tag color={row.outcome === 'ADVANCED' ? 'green' : 'red'}>
                {row.outcome === 'ADVANCED' ? t('game.advanced') : t('game.eliminated')}
              </Tag>
            </li>
          ))}
        </ol>
        {game.player?.isParticipant && (
          <Tag color={game.player.isEliminated ? 'red' : 'green'} className="own-outcome">
            {game.player.isEliminated ? t('game.eliminated') : t('game.advanced')}
          </Tag>
        )}
        {/* The game ends after its final round: no next round to announce. */}
        {advancing && !isFinalRound(game) && (
          <Typography.Text type="secondary">{t('game.nextRound')}</Typography.Text>
        )}
      </Space>
    </Card>
  );
}
