import { Alert, Card, Empty, Skeleton, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/hooks/useSession';
import { useServerNow } from '../../time/hooks/serverClock';
import { useTournamentList } from '../../tournaments/hooks/useTournamentList';
import { heroTournamentOf, previousOf, upcomingOf } from '../../tournaments/display';
import { useAutoRedirect, useAutoRedirectSetting } from '../hooks/useAutoRedirect';
import { WithViewer } from './ConnectedTournament';
import { HeroCard } from './HeroCard';
import { TournamentRow } from './TournamentRow';

/** Spec §2: the hero card, upcoming and previous tournaments. */
export function HomePage() {
  const { t } = useTranslation();
  const list = useTournamentList();
  const { user } = useSession();
  const now = useServerNow(5_000);
  const [autoRedirect, setAutoRedirect] = useAutoRedirectSetting();
  useAutoRedirect(list, autoRedirect, user !== null);

  if (list.loading) {
    return (
      <div className="page" aria-busy="true">
        <Card className="hero">
          <Skeleton active paragraph={{ rows: 4 }} />
        </Card>
        <Skeleton active />
      </div>
    );
  }
  if (list.error) {
    return (
      <div className="page">
        <Alert type="error" showIcon message={t('home.failed')} />
      </div>
    );
  }
  const hero = heroTournamentOf(list.tournaments, now);
  const upcoming = upcomingOf(list.tournaments, now).filter((t) => t.id !== hero?.id);
  const previous = previousOf(list.tournaments);
  return (
    <div className="page">
      <Typography.Title level={1} className="visually-hidden">
        {t('home.title')}
      </Typography.Title>
      {hero ? (
        <WithViewer tournament={hero}>
          {(viewer) => <HeroCard tournament={hero} viewer={viewer} />}
        </WithViewer>
      ) : (
        <HeroCard viewer={{ loggedIn: user !== null, hasChoices: false }} />
      )}
      <label className="auto-redirect">
        <Switch size="small" checked={autoRedirect} onChange={setAutoRedirect} />
        <span>{t('home.autoRedirect')}</span>
      </label>
      <section aria-labelledby="upcoming-title" className="list">
        <Typography.Title level={2} id="upcoming-title" className="section-title">
          {t('home.upcoming')}
        </Typography.Title>
        {upcoming.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.noUpcoming')} />
        ) : (
          upcoming.map((tournament) => (
            <WithViewer key={tournament.id} tournament={tournament}>
              {(viewer) => <TournamentRow tournament={tournament} viewer={viewer} />}
            </WithViewer>
          ))
        )}
      </section>
      <section aria-labelledby="previous-title" className="list">
        <Typography.Title level={2} id="previous-title" className="section-title">
          {t('home.previous')}
        </Typography.Title>
        {previous.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.noPrevious')} />
        ) : (
          previous.map((tournament) => (
            <TournamentRow
              key={tournament.id}
              tournament={tournament}
              viewer={{ loggedIn: user !== null, hasChoices: false }}
            />
          ))
        )}
      </section>
    </div>
  );
}
