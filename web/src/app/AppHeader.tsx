import {
  ArrowLeftOutlined,
  CrownOutlined,
  DownOutlined,
  LoginOutlined,
  LogoutOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { Button, Dropdown, Tag } from 'antd';
import { Link, useLocation } from 'react-router-dom';
import { useLogout } from '../features/session/hooks/useLogout';
import { useSession } from '../features/session/hooks/useSession';
import { useSocketStatus } from './socketStatus';
import { useGo } from './useGo';

/** Spec §2 header: back button on game routes, logo elsewhere; user, guest and visitor states. */
export function AppHeader() {
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
            aria-label="Back to home"
          >
            Back
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
          {socket === 'reconnecting' && (
            <Tag color="orange" role="status" className="reconnecting">
              Reconnecting…
            </Tag>
          )}
          {loading ? null : user ? (
            <>
              {isAdmin && (
                <Button icon={<CrownOutlined />} onClick={() => navigate('/admin')}>
                  Admin
                </Button>
              )}
              <Tag color="purple" className="name-badge" icon={<UserOutlined />}>
                {user.displayName || user.username}
              </Tag>
              <span className="wide-only">
                <Button onClick={() => navigate('/profile')}>Profile</Button>
                <Button icon={<LogoutOutlined />} onClick={() => void logout()}>
                  Logout
                </Button>
              </span>
              <span className="narrow-only">
                <Dropdown
                  trigger={['click']}
                  menu={{
                    items: [
                      { key: 'profile', label: 'Profile', icon: <UserOutlined /> },
                      { key: 'logout', label: 'Logout', icon: <LogoutOutlined /> },
                    ],
                    onClick: ({ key }) => {
                      if (key === 'profile') navigate('/profile');
                      else void logout();
                    },
                  }}
                >
                  <Button aria-label="Account menu" icon={<DownOutlined />} />
                </Dropdown>
              </span>
            </>
          ) : (
            <>
              <span className="guest-label">Guest</span>
              <Button type="primary" onClick={() => navigate('/auth?tab=register')}>
                Register
              </Button>
              <Button icon={<LoginOutlined />} onClick={() => navigate('/auth')}>
                Login
              </Button>
            </>
          )}
        </div>
      </div>
    </header>
  );
}
