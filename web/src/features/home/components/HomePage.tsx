import { Typography } from 'antd';

export function HomePage() {
  return (
    <div className="page">
      <Typography.Title level={2}>Tournaments</Typography.Title>
    </div>
  );
}
