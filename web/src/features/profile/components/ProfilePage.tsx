import { EditOutlined, LockOutlined, LogoutOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatNumber, i18n } from '../../../app/i18n';
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
    {
      name: i18n.t('profile.firstVictory'),
      detail: i18n.t('profile.firstVictoryText'),
      earned: user.wins > 0,
    },
    {
      name: i18n.t('profile.tournamentPlayer'),
      detail: i18n.t('profile.tournamentPlayerText'),
      earned: user.gamesPlayed >= 10,
    },
    {
      name: i18n.t('profile.roundMaster'),
      detail: i18n.t('profile.roundMasterText'),
      earned: user.roundsWon >= 50,
    },
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
  const { t } = useTranslation();
  const submit = async ({ displayName }: { displayName: string }) => {
    try {
      const { data } = await update({ variables: { displayName: displayName.trim() } });
      if (data) setUser(data.updateProfile);
      toast({ title: t('profile.updated') });
      onClose();
    } catch {
      toast({
        title: t('profile.updateFailed'),
        description: t('profile.updateFailedText'),
        variant: 'destructive',
      });
    }
  };
  return (
    <Modal
      title={t('profile.editProfile')}
      open={open}
      onCancel={onClose}
      footer={null}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ email: user.email, displayName: user.displayName }}
        onFinish={(values) => void submit(values)}
      >
        <Form.Item label={t('auth.email')} name="email">
          <Input readOnly disabled />
        </Form.Item>
        <Form.Item
          label={t('auth.displayName')}
          name="displayName"
          rules={[ruleOf(displayNameError)]}
        >
          <Input maxLength={60} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={loading} block>
          {t('profile.save')}
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
  const { t } = useTranslation();
  const submit = async (values: PasswordValues) => {
    try {
      const { data } = await change({
        variables: { currentPassword: values.currentPassword, newPassword: values.newPassword },
      });
      toast({ title: t('profile.passwordChanged'), description: data?.changePassword });
      onClose();
    } catch (error) {
      toast({
        title: t('profile.updateFailed'),
        description: messageOf(error, t('profile.passwordFailed')),
        variant: 'destructive',
      });
    }
  };
  return (
    <Modal
      title={t('profile.changePassword')}
      open={open}
      onCancel={onClose}
      footer={null}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={(values) => void submit(values)}
      >
        <Form.Item
          label={t('profile.currentPassword')}
          name="currentPassword"
          rules={[requiredRule(messages.currentPasswordRequired)]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          label={t('profile.newPassword')}
          name="newPassword"
          rules={[ruleOf((v) => newPasswordError(v, 'New '))]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label={t('profile.confirmPassword')}
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
          {t('profile.changePassword')}
        </Button>
      </Form>
    </Modal>
  );
}

/** Spec §2 Profile (protected: rendered inside RequireVerifiedUser). */
export function ProfilePage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const logout = useLogout();
  const [dialog, setDialog] = useState<'edit' | 'password' | null>(null);
  if (!user) return null;
  const joined = user.createdAt
    ? formatDateTime(new Date(user.createdAt), { year: 'numeric', month: 'long', day: 'numeric' })
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
              <Tag color="purple">{t('profile.member')}</Tag>
              {joined && <span className="muted">{t('profile.joined', { date: joined })}</span>}
            </div>
          </div>
        </div>
        <div className="profile-actions">
          <Button icon={<EditOutlined />} onClick={() => setDialog('edit')}>
            {t('profile.editProfile')}
          </Button>
          <Button icon={<LockOutlined />} onClick={() => setDialog('password')}>
            {t('profile.changePassword')}
          </Button>
          <Button danger icon={<LogoutOutlined />} onClick={() => void logout()}>
            {t('profile.signOut')}
          </Button>
        </div>
      </Card>
      <Card title={<h2 className="card-title">{t('profile.statistics')}</h2>}>
        <div className="stats">
          <Statistic
            title={t('profile.played')}
            value={user.gamesPlayed}
            formatter={(value) => formatNumber(Number(value))}
          />
          <Statistic
            title={t('profile.won')}
            value={user.wins}
            formatter={(value) => formatNumber(Number(value))}
          />
          <Statistic
            title={t('profile.roundsAdvanced')}
            value={user.roundsWon}
            formatter={(value) => formatNumber(Number(value))}
          />
        </div>
      </Card>
      <Card title={<h2 className="card-title">{t('profile.achievements')}</h2>}>
        <ul className="achievements">
          {achievementsOf(user).map((achievement) => (
            <li key={achievement.name} className={achievement.earned ? 'earned' : 'locked'}>
              <strong>{achievement.name}</strong>
              <span className="muted">{achievement.detail}</span>
              <Tag color={achievement.earned ? 'gold' : 'default'}>
                {achievement.earned ? t('profile.unlocked') : t('profile.locked')}
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
