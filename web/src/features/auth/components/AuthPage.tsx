import { useMutation } from '@apollo/client';
import { useTranslation } from 'react-i18next';
import { loginFailureTextOf } from '../../../app/errors';
import { currentLanguage } from '../../../app/i18n';
import { Button, Card, Form, Input, Tabs, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router-dom';
import { useToast } from '../../../app/toast';
import { useGo } from '../../../app/useGo';
import { LoginDocument, RegisterDocument } from '../../../gql/operations';
import { homePathOf, useSession } from '../../session/hooks/useSession';
import {
  displayNameError,
  emailError,
  messages,
  newPasswordError,
  requiredRule,
  ruleOf,
} from '../validation';

type Tab = 'login' | 'register';

interface LoginValues {
  email: string;
  password: string;
}
interface RegisterValues {
  email: string;
  displayName: string;
  password: string;
}

function LoginForm() {
  const { t } = useTranslation();
  const [form] = Form.useForm<LoginValues>();
  const [login, { loading }] = useMutation(LoginDocument);
  const { setUser } = useSession();
  const toast = useToast();
  const go = useGo();
  const submit = async (values: LoginValues) => {
    try {
      const { data } = await login({
        variables: { email: values.email.trim(), password: values.password },
      });
      if (!data) throw new Error('no data');
      setUser(data.login);
      toast({ title: t('auth.welcomeBack'), description: t('auth.loggedIn') });
      go(homePathOf(data.login), { replace: true });
    } catch (error) {
      // Spec §5: the failure message is generic (a 401 arrives as a network error); a throttled
      // login (429) says so, with when to try again (server rules).
      toast({
        title: t('auth.loginFailed'),
        description: loginFailureTextOf(error),
        variant: 'destructive',
      });
    }
  };
  return (
    <Form
      form={form}
      layout="vertical"
      onFinish={(values) => void submit(values)}
      requiredMark={false}
    >
      <Form.Item label={t('auth.email')} name="email" rules={[ruleOf(emailError)]}>
        <Input type="email" autoComplete="email" />
      </Form.Item>
      <Form.Item
        label={t('auth.password')}
        name="password"
        rules={[requiredRule(messages.passwordRequired)]}
      >
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block size="large" loading={loading}>
        {t('auth.login')}
      </Button>
    </Form>
  );
}

function RegisterForm() {
  const { t } = useTranslation();
  const [form] = Form.useForm<RegisterValues>();
  const [register, { loading }] = useMutation(RegisterDocument);
  const { setUser } = useSession();
  const toast = useToast();
  const go = useGo();
  const submit = async (values: RegisterValues) => {
    try {
      const { data } = await register({
        variables: {
          input: {
            email: values.email.trim(),
            displayName: values.displayName.trim(),
            password: values.password,
          },
        },
      });
      if (!data) throw new Error('no data');
      setUser(data.register.user);
      toast({
        title: t('auth.accountCreated'),
        // The server's own words in English; its message has no code to translate by.
        description:
          currentLanguage() === 'en'
            ? data.register.message || t('auth.checkEmail')
            : t('verify.enterCodeFor', { email: values.email.trim() }),
      });
      go('/verify-email', { replace: true });
    } catch {
      toast({
        title: t('auth.registrationFailed'),
        description: t('auth.registrationFailedText'),
        variant: 'destructive',
      });
    }
  };
  return (
    <Form
      form={form}
      layout="vertical"
      onFinish={(values) => void submit(values)}
      requiredMark={false}
    >
      <Form.Item label={t('auth.email')} name="email" rules={[ruleOf(emailError)]}>
        <Input type="email" autoComplete="email" />
      </Form.Item>
      <Form.Item
        label={t('auth.displayName')}
        name="displayName"
        rules={[ruleOf(displayNameError)]}
      >
        <Input autoComplete="nickname" maxLength={60} />
      </Form.Item>
      <Form.Item
        label={t('auth.password')}
        name="password"
        rules={[ruleOf((v) => newPasswordError(v))]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block size="large" loading={loading}>
        {t('auth.createAccount')}
      </Button>
    </Form>
  );
}

/**
 * Spec §2 Auth: login and register tabs (fields cleared when switching: each tab mounts a fresh
 * form), a marketing panel; a verified signed-in user goes to /admin (admins) or /.
 */
export function AuthPage() {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  const [tab, setTab] = useState<Tab>(search.get('tab') === 'register' ? 'register' : 'login');
  const { user } = useSession();
  useEffect(() => {
    setTab(search.get('tab') === 'register' ? 'register' : 'login');
  }, [search]);
  if (user?.isEmailVerified) return <Navigate to={homePathOf(user)} replace />;
  return (
    <div className="auth">
      <section className="auth__pitch" aria-labelledby="auth-pitch">
        <Typography.Title level={1} id="auth-pitch">
          {t('auth.pitchTitle')}
        </Typography.Title>
        <Typography.Paragraph>{t('auth.pitchText')}</Typography.Paragraph>
      </section>
      <Card className="auth__card">
        <Tabs
          activeKey={tab}
          onChange={(key) => setTab(key === 'register' ? 'register' : 'login')}
          destroyOnHidden
          items={[
            { key: 'login', label: t('auth.login'), children: <LoginForm /> },
            { key: 'register', label: t('auth.register'), children: <RegisterForm /> },
          ]}
        />
      </Card>
    </div>
  );
}
