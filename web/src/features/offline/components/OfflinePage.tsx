import { Typography } from 'antd';

export function OfflinePage() {
  return (
    <div className="page">
      <Typography.Title level={2}>Offline Mode</Typography.Title>
    </div>
  );
}
