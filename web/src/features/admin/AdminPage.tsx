import { Spin, Typography } from 'antd';
import { Navigate } from 'react-router-dom';
import { useSession } from '../session/hooks/useSession';

/**
 * The admin dashboard (/admin), loaded on demand so the home route never ships admin code.
 * Non-admins are sent to / (spec §2). A minimal page for now: the dashboard arrives with its
 * own issue.
 */
export default function AdminPage() {
  const { user, loading, isAdmin } = useSession();
  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label="Loading" />
      </div>
    );
  }
  if (!isAdmin) return <Navigate to="/" replace />;
  return (
    <div className="page">
      <Typography.Title level={2}>Admin Dashboard</Typography.Title>
      <Typography.Paragraph>Welcome, {user?.displayName || user?.username}</Typography.Paragraph>
    </div>
  );
}
