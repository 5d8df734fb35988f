import { i18n } from '../../../app/i18n';
import { Spin } from 'antd';
import type { ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import { useSession } from '../hooks/useSession';

/** Spec §4, protected pages: a spinner while loading; no user → /auth; unverified → /verify-email. */
export function RequireVerifiedUser({ children }: { children: ReactNode }) {
  const { user, loading } = useSession();
  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label={i18n.t('common.loading')} />
      </div>
    );
  }
  if (!user) return <Navigate to="/auth" replace />;
  if (!user.isEmailVerified) return <Navigate to="/verify-email" replace />;
  return <>{children}</>;
}
