import { Typography } from 'antd';

export function ProfilePage() {
  return (
    <div className="page">
      <Typography.Title level={2}>Profile</Typography.Title>
    </div>
  );
}
