import { formatDateTime, i18n } from '../../../app/i18n';
import { useQuery } from '@apollo/client';
import { Empty, List, Modal, Space, Spin, Tag, Typography } from 'antd';
import { TournamentDetailsDocument } from '../../../gql/operations';
import { optionOf, roundSummariesOf, type RoundSummary } from '../validation';
import { DisqualifiedList } from './DisqualifiedList';
import { FairPlaySection } from './FairPlaySection';

/** Spec §2: the online/offline labels are Persian. */
const ONLINE = 'آنلاین';
const OFFLINE = 'آفلاین';

function ModeBadge({ offline }: { offline: boolean }) {
  return (
    <Tag color={offline ? 'orange' : 'green'} lang="fa" dir="rtl">
      {offline ? OFFLINE : ONLINE}
    </Tag>
  );
}

const SPLIT_COLORS = ['#7c3aed', '#0ea5e9', '#f59e0b', '#16a34a'];

/** Players remaining per round (the survival curve) and each round's vote split. */
function SurvivalChart({ totalPlayers, rounds }: { totalPlayers: number; rounds: RoundSummary[] }) {
  // Plot area inside a margin for the counts above the points and the round labels below.
  const width = 320;
  const height = 120;
  const margin = { top: 18, right: 12, bottom: 22, left: 12 };
  const max = Math.max(1, totalPlayers);
  const stepX = rounds.length > 0 ? width / rounds.length : width;
  const values = [totalPlayers, ...rounds.map((r) => r.remaining)];
  const points = values.map((value, i) => ({
    x: margin.left + i * stepX,
    y: margin.top + height - (value / max) * height,
    value,
    label:
      i === 0
        ? i18n.t('details.start')
        : i18n.t('details.roundShort', { round: rounds[i - 1]!.roundNumber }),
  }));
  const baseline = margin.top + height;
  return (
    <figure className="survival-chart" aria-label={i18n.t('details.chartCaption')}>
      <svg
        viewBox={`0 0 ${margin.left + width + margin.right} ${baseline + margin.bottom}`}
        role="img"
        aria-label={i18n.t('details.remainingLabel', { values: values.join(', ') })}
      >
        <line
          x1={margin.left}
          x2={margin.left + width}
          y1={baseline}
          y2={baseline}
          stroke="#c4b5fd"
        />
        <polyline
          points={points.map((p) => `${p.x},${p.y}`).join(' ')}
          fill="none"
          stroke="#7c3aed"
          strokeWidth={3}
        />
        {points.map((p) => (
          <g key={p.label}>
            <circle cx={p.x} cy={p.y} r={4} fill="#7c3aed" />
            <text x={p.x} y={p.y - 8} textAnchor="middle" fontSize={11} fill="#2e1065">
              {p.value}
            </text>
            <text x={p.x} y={baseline + 15} textAnchor="middle" fontSize={11} fill="#4b4463">
              {p.label}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>{i18n.t('details.chartCaption')}</figcaption>
      <table className="survival-table">
        <thead>
          <tr>
            <th scope="col">{i18n.t('details.round')}</th>
            <th scope="col">{i18n.t('details.votes')}</th>
            <th scope="col">{i18n.t('details.remaining')}</th>
            <th scope="col">{i18n.t('details.split')}</th>
          </tr>
        </thead>
        <tbody>
          {rounds.map((r) => {
            const total = r.split.reduce((a, b) => a + b, 0);
            return (
              <tr key={r.roundNumber} data-round={r.roundNumber}>
                <td>{r.roundNumber}</td>
                <td>{r.votes}</td>
                <td>{r.remaining}</td>
                <td>
                  <div
                    className="split-bar"
                    role="img"
                    aria-label={i18n.t('details.splitLabel', { values: r.split.join(', ') })}
                  >
                    {r.split.map((n, i) => (
                      <span
                        key={i}
                        style={{
                          width: total > 0 ? `${(n / total) * 100}%` : 0,
                          background: SPLIT_COLORS[i % 4],
                        }}
                      />
                    ))}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="split-legend" aria-hidden="true">
        {SPLIT_COLORS.map((color, i) => (
          <span key={color}>
            <span className="split-swatch" style={{ background: color }} />
            Option {i + 1}
          </span>
        ))}
      </p>
    </figure>
  );
}

/** Spec §2 details dialog: the tournament, winner, prize, players and its round-by-round history. */
export function DetailsDialog({
  tournamentId,
  onClose,
}: {
  tournamentId: string | undefined;
  onClose(): void;
}) {
  const { data, loading } = useQuery(TournamentDetailsDocument, {
    variables: { tournamentId: tournamentId ?? '' },
    skip: !tournamentId,
    fetchPolicy: 'network-only',
  });
  const details = data?.tournamentDetails;
  return (
    <Modal
      open={Boolean(tournamentId)}
      title={i18n.t('details.title')}
      onCancel={onClose}
      footer={null}
      width={760}
    >
      {loading && !details ? (
        <Space>
          <Spin aria-label={i18n.t('common.loading')} />
          <Typography.Text>{i18n.t('details.loading')}</Typography.Text>
        </Space>
      ) : !details ? (
        <Empty description={i18n.t('details.empty')} />
      ) : (
        <Space direction="vertical" style={{ width: '100%' }} className="details">
          <Typography.Text>
            <strong>{i18n.t('details.tournament')}</strong> {details.tournament.title}
          </Typography.Text>
          <Typography.Text>
            <strong>{i18n.t('details.winner')}</strong>{' '}
            {details.winner?.username ?? i18n.t('details.noWinner')}
          </Typography.Text>
          <Typography.Text>
            <strong>{i18n.t('details.prize')}</strong>{' '}
            {details.tournament.prize || i18n.t('common.noPrize')}
          </Typography.Text>
          <Typography.Text>
            <strong>{i18n.t('details.players')}</strong>{' '}
            <span data-testid="details-players">{details.totalPlayers}</span>
          </Typography.Text>
          <SurvivalChart totalPlayers={details.totalPlayers} rounds={roundSummariesOf(details)} />
          <DisqualifiedList tournamentId={details.tournament.id} />
          <FairPlaySection tournamentId={details.tournament.id} />
          <Typography.Title level={5}>{i18n.t('details.history')}</Typography.Title>
          {details.rounds.map((round) => (
            <section
              key={round.roundNumber}
              className="details-round"
              data-round={round.roundNumber}
            >
              <Typography.Text strong>
                {i18n.t('details.roundVotes', {
                  round: round.roundNumber,
                  count: round.votes.length,
                })}
              </Typography.Text>
              <ul className="details-images">
                {round.images.map((image, i) => (
                  <li key={image.id}>
                    {i18n.t('details.image', { option: i + 1, id: image.id, alt: image.alt })}
                  </li>
                ))}
              </ul>
              {round.votes.length === 0 ? (
                <Typography.Text type="secondary">{i18n.t('details.noVotes')}</Typography.Text>
              ) : (
                <List
                  size="small"
                  dataSource={round.votes}
                  renderItem={(vote) => (
                    <List.Item>
                      <Space wrap>
                        <span>{vote.username}</span>
                        <ModeBadge offline={vote.isOfflinePlayer} />
                        <span>
                          {i18n.t('details.option', {
                            option: optionOf(round.images, vote.imageId),
                          })}
                        </span>
                        <span>
                          {formatDateTime(new Date(vote.votedAt), { timeStyle: 'medium' })}
                        </span>
                      </Space>
                    </List.Item>
                  )}
                />
              )}
              {round.eliminatedPlayers.length > 0 && (
                <div className="details-eliminated">
                  <Typography.Text type="secondary">{i18n.t('details.eliminated')}</Typography.Text>
                  {round.eliminatedPlayers.map((p) => (
                    <Space key={p.username} size={2} style={{ marginRight: 8 }}>
                      <span>{p.username}</span>
                      <ModeBadge offline={p.isOfflinePlayer} />
                      {p.disqualificationReason && (
                        <Tag color="red" title={p.disqualificationReason}>
                          {i18n.t('disqualify.disqualified')}
                        </Tag>
                      )}
                    </Space>
                  ))}
                </div>
              )}
            </section>
          ))}
        </Space>
      )}
    </Modal>
  );
}
