import { EditOutlined, LockOutlined, LogoutOutlined } from '@ant-design/icons';
import { useMutation } from '@apollo/client';
import { Avatar, Button, Card, Form, Input, Modal, Statistic, Tag, Typography } from 'antd';
import { useState } from 'react';
import { messageOf } from '../../../app/errors';
import { useToast } from '../../../app/toast';
import { ChangePasswordDocument, UpdateProfileDocument } from '../../../gql/operations';
import {
  displayNameError,
  messages,
  newPasswordError,
  requiredRule,
  ruleOf,
} from '../../auth/validation';
import { useLogout } from '../../session/hooks/useLogout';
import { initialsOf, useSession, type SessionUser } from '../../session/hooks/useSession';

/** Spec §9 achievements. */
export function achievementsOf(user: Pick<SessionUser, 'wins' | 'gamesPlayed' | 'roundsWon'>) {
  return [
    { name: 'First Victory', detail: 'Win a tournament', earned: user.wins > 0 },
    { name: 'Tournament Player', detail: 'Play 10 tournaments', earned: user.gamesPlayed >= 10 },
    { name: 'Round Master', detail: 'Win 50 rounds', earned: user.roundsWon >= 50 },
  ];
}

function EditProfileDialog({
  user,
  open,
  onClose,
}: {
  user: SessionUser;
  open: boolean;
  onClose: () => void;
}) {
  const [form] = Form.useForm<{ displayName: string }>();
  const [update, { loading }] = useMutation(UpdateProfileDocument);
  const { setUser } = useSession();
  const toast = useToast();
  const submit = async ({ displayName }: { displayName: string }) => {
    try {
      const { data } = await update({ variables: { displayName: displayName.trim() } });
      if (data) setUser(data.updateProfile);
      toast({ title: 'Profile updated' });
      onClose();
    } catch {
      toast({
        title: 'Update failed',
        description: 'Failed to update profile. Please try again.',
        variant: 'destructive',
      });
    }
  };
  return (
    <Modal title="Edit Profile" open={open} onCancel={onClose} footer={null} destroyOnHidden>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ email: user.email, displayName: user.displayName }}
        onFinish={(values) => void submit(values)}
      >
        <Form.Item label="Email" name="email">
          <Input readOnly disabled />
        </Form.Item>
        <Form.Item label="Display name" name="displayName" rules={[ruleOf(displayNameError)]}>
          <Input maxLength={60} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={loading} block>
          Save
        </Button>
      </Form>
    </Modal>
  );
}

interface PasswordValues {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<PasswordValues>();
  const [change, { loading }] = useMutation(ChangePasswordDocument);
  const toast = useToast();
  const submit = async (values: PasswordValues) => {
    try {
      const { data } = await change({
        variables: { currentPassword: values.currentPassword, newPassword: values.newPassword },
      });
      toast({ title: 'Password changed', description: data?.changePassword });
      onClose();
    } catch (error) {
      toast({
        title: 'Update failed',
        description: messageOf(error, 'Failed to change password.'),
        variant: 'destructive',
      });
    }
  };
  return (
    <Modal title="Change Password" open={open} onCancel={onClose} footer={null} destroyOnHidden>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={(values) => void submit(values)}
      >
        <Form.Item
          label="Current password"
          name="currentPassword"
          rules={[requiredRule(messages.currentPasswordRequired)]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          label="New password"
          name="newPassword"
          rules={[ruleOf((v) => newPasswordError(v, 'New '))]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label="Confirm new password"
          name="confirmPassword"
          dependencies={['newPassword']}
          rules={[
            requiredRule(messages.confirmRequired),
            ({ getFieldValue }) => ({
              validator: async (_rule, value: unknown) => {
                if (value && value !== getFieldValue('newPassword'))
                  throw new Error(messages.mismatch);
              },
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={loading} block>
          Change Password
        </Button>
      </Form>
    </Modal>
  );
}

/** Spec §2 Profile (protected: rendered inside RequireVerifiedUser). */
export function ProfilePage() {
  const { user } = useSession();
  const logout = useLogout();
  const [dialog, setDialog] = useState<'edit' | 'password' | null>(null);
  if (!user) return null;
  const joined = user.createdAt
    ? new Date(user.createdAt).toLocaleDateString('en-US', {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
      })
    : undefined;
  return (
    <div className="page">
      <Card>
        <div className="profile-head">
          <Avatar size={72} className="profile-avatar" aria-hidden="true">
            {initialsOf(user)}
          </Avatar>
          <div className="profile-head__text">
            <Typography.Title level={1} className="page-title">
              {user.displayName || user.username}
            </Typography.Title>
            <div className="muted">@{user.username}</div>
            <div className="profile-head__tags">
              <Tag color="purple">Member</Tag>
              {joined && <span className="muted">Joined {joined}</span>}
            </div>
          </div>
        </div>
        <div className="profile-actions">
          <Button icon={<EditOutlined />} onClick={() => setDialog('edit')}>
            Edit Profile
          </Button>
          <Button icon={<LockOutlined />} onClick={() => setDialog('password')}>
            Change Password
          </Button>
          <Button danger icon={<LogoutOutlined />} onClick={() => void logout()}>
            Sign Out
          </Button>
        </div>
      </Card>
      <Card title={<h2 className="card-title">Statistics</h2>}>
        <div className="stats">
          <Statistic title="Tournaments Played" value={user.gamesPlayed} />
          <Statistic title="Tournaments Won" value={user.wins} />
          <Statistic title="Rounds Advanced" value={user.roundsWon} />
        </div>
      </Card>
      <Card title={<h2 className="card-title">Achievements</h2>}>
        <ul className="achievements">
          {achievementsOf(user).map((achievement) => (
            <li key={achievement.name} className={achievement.earned ? 'earned' : 'locked'}>
              <strong>{achievement.name}</strong>
              <span className="muted">{achievement.detail}</span>
              <Tag color={achievement.earned ? 'gold' : 'default'}>
                {achievement.earned ? 'Unlocked' : 'Locked'}
              </Tag>
            </li>
          ))}
        </ul>
      </Card>
      <EditProfileDialog user={user} open={dialog === 'edit'} onClose={() => setDialog(null)} />
      <ChangePasswordDialog open={dialog === 'password'} onClose={() => setDialog(null)} />
    </div>
  );
}
