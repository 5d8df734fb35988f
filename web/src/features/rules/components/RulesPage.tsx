import { Typography } from 'antd';

export function RulesPage() {
  return (
    <div className="page">
      <Typography.Title level={2}>How it works</Typography.Title>
    </div>
  );
}
