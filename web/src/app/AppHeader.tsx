import {
  ArrowLeftOutlined,
  CrownOutlined,
  DownOutlined,
  LoginOutlined,
  LogoutOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { Button, Dropdown, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { useLogout } from '../features/session/hooks/useLogout';
import { useSession } from '../features/session/hooks/useSession';
import { i18n } from './i18n';
import { LanguageSwitch } from './LanguageSwitch';
import { useSocketStatus } from './socketStatus';
import { useGo } from './useGo';
import { WaitingRoomNotice } from './WaitingRoomNotice';

/** Spec §2 header: back button on game routes, logo elsewhere; user, guest and visitor states. */
export function AppHeader() {
  const { t } = useTranslation(undefined, { i18n });
  const { pathname } = useLocation();
  const navigate = useGo();
  const { user, loading, isAdmin } = useSession();
  const logout = useLogout();
  const socket = useSocketStatus();
  const onGame = pathname.startsWith('/game');

  return (
    <header className="app-header">
      <div className="app-header__inner">
        {onGame ? (
          <Button
            icon={<ArrowLeftOutlined />}
            onClick={() => navigate('/')}
            aria-label={t('header.backToHome')}
          >
            {t('header.back')}
          </Button>
        ) : (
          <Link to="/" className="logo">
            <span className="logo__mark" aria-hidden="true">
              U
            </span>
            <span className="logo__text">UNDERDOG</span>
          </Link>
        )}
        <div className="app-header__right">
          <LanguageSwitch />
          {socket === 'reconnecting' && (
            <Tag color="orange" role="status" className="reconnecting">
              {t('header.reconnecting')}
            </Tag>
          )}
          {loading ? null : user ? (
            <>
              {isAdmin && (
                <Button
                  icon={<CrownOutlined />}
                  className="admin-button"
                  aria-label={t('header.admin')}
                  onClick={() => navigate('/admin')}
                >
                  {t('header.admin')}
                </Button>
              )}
              <Tag color="purple" className="name-badge" icon={<UserOutlined />}>
                {user.displayName || user.username}
              </Tag>
              <span className="wide-only">
                <Button onClick={() => navigate('/profile')}>{t('header.profile')}</Button>
                <Button icon={<LogoutOutlined />} onClick={() => void logout()}>
                  {t('header.logout')}
                </Button>
              </span>
              <span className="narrow-only">
                <Dropdown
                  trigger={['click']}
                  menu={{
                    items: [
                      { key: 'profile', label: t('header.profile'), icon: <UserOutlined /> },
                      { key: 'logout', label: t('header.logout'), icon: <LogoutOutlined /> },
                    ],
                    onClick: ({ key }) => {
                      if (key === 'profile') navigate('/profile');
                      else void logout();
                    },
                  }}
                >
                  <Button aria-label={t('header.accountMenu')} icon={<DownOutlined />} />
                </Dropdown>
              </span>
            </>
          ) : (
            <>
              <span className="guest-label">{t('header.guest')}</span>
              <Button type="primary" onClick={() => navigate('/auth?tab=register')}>
                {t('header.register')}
              </Button>
              <Button icon={<LoginOutlined />} onClick={() => navigate('/auth')}>
                {t('header.login')}
              </Button>
            </>
          )}
        </div>
      </div>
      <WaitingRoomNotice />
    </header>
  );
}
