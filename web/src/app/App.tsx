import { ApolloProvider, type ApolloClient } from '@apollo/client';
import { App as AntApp, ConfigProvider, Spin } from 'antd';
import enUS from 'antd/locale/en_US';
import faIR from 'antd/locale/fa_IR';
import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { ServerClockProvider } from '../features/time/hooks/serverClock';
import { HomePage } from '../features/home/components/HomePage';
import { RequireVerifiedUser } from '../features/session/components/RequireVerifiedUser';
import { AppHeader } from './AppHeader';
import { TabBar } from './TabBar';
import { directionOf, i18n, isLanguage, type Language } from './i18n';
import { useReducedMotion } from './motion';
import { TOAST_MAX_COUNT, ToastProvider } from './toast';
import { themeFor } from './theme';

const ANTD_LOCALE = { en: enUS, fa: faIR } satisfies Record<Language, unknown>;

// Only the home screen is in the first chunk: every other page, the game screen and the admin
// dashboard load on demand, so the home route stays small (docs/benchmarks.md).
const AuthPage = lazy(() =>
  import('../features/auth/components/AuthPage').then((m) => ({ default: m.AuthPage })),
);
const NotFoundPage = lazy(() =>
  import('../features/notfound/components/NotFoundPage').then((m) => ({ default: m.NotFoundPage })),
);
const OfflinePage = lazy(() =>
  import('../features/offline/components/OfflinePage').then((m) => ({ default: m.OfflinePage })),
);
const ProfilePage = lazy(() =>
  import('../features/profile/components/ProfilePage').then((m) => ({ default: m.ProfilePage })),
);
const RulesPage = lazy(() =>
  import('../features/rules/components/RulesPage').then((m) => ({ default: m.RulesPage })),
);
const TournamentsPage = lazy(() =>
  import('../features/tournaments/components/TournamentsPage').then((m) => ({
    default: m.TournamentsPage,
  })),
);
const VerifyEmailPage = lazy(() =>
  import('../features/verify/components/VerifyEmailPage').then((m) => ({
    default: m.VerifyEmailPage,
  })),
);
const GamePage = lazy(() => import('../features/game/GamePage'));
const AdminPage = lazy(() => import('../features/admin/AdminPage'));

function PageFallback() {
  return (
    <div className="page-center">
      <Spin size="large" aria-label={i18n.t('common.loading')} />
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
  const reducedMotion = useReducedMotion();
  const theme = useMemo(() => themeFor({ reducedMotion }), [reducedMotion]);
  // Re-renders on a language switch; antd follows with its direction and its own strings.
  const { i18n: active } = useTranslation(undefined, { i18n });
  const language: Language = isLanguage(active.language) ? active.language : 'en';
  return (
    <ApolloProvider client={client}>
      <ConfigProvider
        theme={theme}
        direction={directionOf(language)}
        locale={ANTD_LOCALE[language]}
      >
        <AntApp notification={{ maxCount: TOAST_MAX_COUNT }}>
          <ToastProvider>
            <ServerClockProvider>{children}</ServerClockProvider>
          </ToastProvider>
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
