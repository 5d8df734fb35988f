import { Tag } from 'antd';
import type { DisplayStatus } from '../display';

const COLORS: Record<DisplayStatus, string> = {
  live: 'red',
  upcoming: 'blue',
  finished: 'default',
};

export function StatusBadge({ status, label }: { status: DisplayStatus; label: string }) {
  return (
    <Tag color={COLORS[status]} className="status-badge">
      {label}
    </Tag>
  );
}
