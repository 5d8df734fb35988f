import { Typography } from 'antd';

export function VerifyEmailPage() {
  return (
    <div className="page">
      <Typography.Title level={2}>Verify your e-mail</Typography.Title>
    </div>
  );
}
