import { Space, Tag } from 'antd';
import { i18n } from '../../../app/i18n';
import { DisqualifyButton } from './DisqualifyButton';

/**
 * A member of a fair-play group (issue 28): their name (red when flagged), and the
 * administrator's action on them: Disqualify, or the Disqualified mark once done.
 */
export function FairPlayMember({
  tournamentId,
  member,
  flagged,
  disqualified,
}: {
  tournamentId: string;
  member: { userId: string; username?: string | null };
  flagged: boolean;
  disqualified: boolean;
}) {
  const name = member.username ?? member.userId;
  return (
    <Space size={4} className="fair-play-member" data-testid="fair-play-member" data-name={name}>
      <Tag color={flagged ? 'red' : undefined}>{name}</Tag>
      {disqualified ? (
        <Tag color="volcano" data-testid="member-disqualified">
          {i18n.t('disqualify.disqualified')}
        </Tag>
      ) : (
        <DisqualifyButton tournamentId={tournamentId} userId={member.userId} name={name} />
      )}
    </Space>
  );
}
