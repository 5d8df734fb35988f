import { TeamOutlined, TrophyOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../../app/i18n';
import { Card } from 'antd';
import { Countdown } from '../../time/components/Countdown';
import { useServerNow } from '../../time/hooks/serverClock';
import { ActionButton } from '../../tournaments/components/ActionButton';
import { StatusBadge } from '../../tournaments/components/StatusBadge';
import {
  countdownTargetOf,
  displayStatusOf,
  rowActionOf,
  type Tournament,
  type Viewer,
} from '../../tournaments/display';

/** Spec §2: one row of the home screen's lists. */
export function TournamentRow({ tournament, viewer }: { tournament: Tournament; viewer: Viewer }) {
  const { t } = useTranslation();
  const now = useServerNow();
  const status = displayStatusOf(tournament, now);
  const target = countdownTargetOf(tournament, now);
  return (
    <Card size="small" className="row" aria-label={tournament.title}>
      <div className="row__main">
        <div className="row__title">
          <strong>{tournament.title}</strong>
          {status !== 'finished' && (
            <StatusBadge
              status={status}
              label={status === 'live' ? t('home.rowActive') : t('home.rowUpcoming')}
            />
          )}
        </div>
        <div className="row__facts muted">
          <span>
            <TrophyOutlined aria-hidden="true" /> {tournament.prize || '—'}
          </span>
          <span>
            <TeamOutlined aria-hidden="true" /> {formatNumber(tournament.participantCount)}
          </span>
          <span>
            {target === undefined ? (
              t('home.rowFinished')
            ) : (
              <Countdown to={target} label={t('home.timeLeft')} />
            )}
          </span>
        </div>
      </div>
      <ActionButton action={rowActionOf(tournament, now, viewer)} />
    </Card>
  );
}
