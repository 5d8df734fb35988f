import { BookOutlined, TrophyOutlined, UserOutlined } from '@ant-design/icons';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { i18n } from './i18n';

interface Tab {
  to: string;
  /** The catalog key of its label. */
  label: 'tabs.tournaments' | 'tabs.rules' | 'tabs.profile';
  icon: ReactNode;
  /** Path prefixes that make the tab active. */
  prefixes: string[];
}

const TABS: Tab[] = [
  {
    to: '/',
    label: 'tabs.tournaments',
    icon: <TrophyOutlined />,
    prefixes: ['/tournaments', '/offline'],
  },
  { to: '/rules', label: 'tabs.rules', icon: <BookOutlined />, prefixes: ['/rules'] },
  { to: '/profile', label: 'tabs.profile', icon: <UserOutlined />, prefixes: ['/profile'] },
];

export function isTabActive(tab: Pick<Tab, 'to' | 'prefixes'>, pathname: string): boolean {
  if (tab.to === '/' && pathname === '/') return true;
  return tab.prefixes.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** Spec §2: the bottom tab bar, hidden on /game routes, active tab by path prefix. */
export function TabBar() {
  const { t } = useTranslation(undefined, { i18n });
  const { pathname } = useLocation();
  if (pathname.startsWith('/game')) return null;
  return (
    <nav className="tab-bar" aria-label={t('tabs.main')}>
      {TABS.map((tab) => {
        const active = isTabActive(tab, pathname);
        return (
          <Link
            key={tab.to}
            to={tab.to}
            className={active ? 'tab-bar__tab tab-bar__tab--active' : 'tab-bar__tab'}
            aria-current={active ? 'page' : undefined}
          >
            <span className="tab-bar__icon" aria-hidden="true">
              {tab.icon}
            </span>
            <span>{t(tab.label)}</span>
          </Link>
        );
      })}
    </nav>
  );
}
