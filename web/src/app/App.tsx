import { ApolloProvider, type ApolloClient } from '@apollo/client';
import { App as AntApp, ConfigProvider, Spin } from 'antd';
import { lazy, Suspense, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { AuthPage } from '../features/auth/components/AuthPage';
import { ServerClockProvider } from '../features/time/hooks/serverClock';
import { HomePage } from '../features/home/components/HomePage';
import { NotFoundPage } from '../features/notfound/components/NotFoundPage';
import { OfflinePage } from '../features/offline/components/OfflinePage';
import { ProfilePage } from '../features/profile/components/ProfilePage';
import { RulesPage } from '../features/rules/components/RulesPage';
import { RequireVerifiedUser } from '../features/session/components/RequireVerifiedUser';
import { TournamentsPage } from '../features/tournaments/components/TournamentsPage';
import { VerifyEmailPage } from '../features/verify/components/VerifyEmailPage';
import { AppHeader } from './AppHeader';
import { TabBar } from './TabBar';
import { TOAST_MAX_COUNT } from './toast';
import { theme } from './theme';

// The game screen and the admin dashboard load on demand: the home route never pays for them.
const GamePage = lazy(() => import('../features/game/GamePage'));
const AdminPage = lazy(() => import('../features/admin/AdminPage'));

function PageFallback() {
  return (
    <div className="page-center">
      <Spin size="large" aria-label="Loading" />
    </div>
  );
}

export function AppProviders({
  client,
  children,
}: {
  client: ApolloClient<unknown>;
  children: ReactNode;
}) {
  return (
    <ApolloProvider client={client}>
      <ConfigProvider theme={theme}>
        <AntApp notification={{ maxCount: TOAST_MAX_COUNT }}>
          <ServerClockProvider>{children}</ServerClockProvider>
        </AntApp>
      </ConfigProvider>
    </ApolloProvider>
  );
}

export function AppRoutes() {
  return (
    <Suspense fallback={<PageFallback />}>
      <Routes>
        <Route path="/" element={<HomePage />} />
        <Route path="/auth" element={<AuthPage />} />
        <Route path="/verify-email/:token?" element={<VerifyEmailPage />} />
        <Route path="/rules" element={<RulesPage />} />
        <Route
          path="/profile"
          element={
            <RequireVerifiedUser>
              <ProfilePage />
            </RequireVerifiedUser>
          }
        />
        <Route path="/offline" element={<OfflinePage />} />
        <Route path="/live" element={<Navigate to="/" replace />} />
        <Route path="/tournaments" element={<TournamentsPage />} />
        <Route path="/game/:id" element={<GamePage />} />
        <Route path="/admin" element={<AdminPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Suspense>
  );
}

/** The whole app: providers, the shell (header, page, bottom tabs) and the routes. */
export function App({ client }: { client: ApolloClient<unknown> }) {
  return (
    <AppProviders client={client}>
      <BrowserRouter>
        <div className="app">
          <AppHeader />
          <main className="app-main" id="main">
            <AppRoutes />
          </main>
          <TabBar />
        </div>
      </BrowserRouter>
    </AppProviders>
  );
}
