import { Typography } from 'antd';

export function TournamentsPage() {
  return (
    <div className="page">
      <Typography.Title level={2}>All Tournaments</Typography.Title>
    </div>
  );
}
