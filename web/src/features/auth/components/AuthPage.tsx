import { Typography } from 'antd';

export function AuthPage() {
  return (
    <div className="page">
      <Typography.Title level={2}>Login</Typography.Title>
    </div>
  );
}
