import { useMutation } from '@apollo/client';
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
      toast({ title: 'Welcome back!', description: 'You have been successfully logged in.' });
      go(homePathOf(data.login), { replace: true });
    } catch {
      // Spec §5: the failure message is generic (a 401 arrives as a network error).
      toast({
        title: 'Login failed',
        description: 'Invalid username or password',
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
      <Form.Item label="Email" name="email" rules={[ruleOf(emailError)]}>
        <Input type="email" autoComplete="email" />
      </Form.Item>
      <Form.Item label="Password" name="password" rules={[requiredRule(messages.passwordRequired)]}>
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block size="large" loading={loading}>
        Login
      </Button>
    </Form>
  );
}

function RegisterForm() {
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
        title: 'Account Created!',
        description: data.register.message || 'Please check your e-mail for the verification code.',
      });
      go('/verify-email', { replace: true });
    } catch {
      toast({
        title: 'Registration failed',
        description: 'Username might already be taken or invalid data provided',
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
      <Form.Item label="Email" name="email" rules={[ruleOf(emailError)]}>
        <Input type="email" autoComplete="email" />
      </Form.Item>
      <Form.Item label="Display name" name="displayName" rules={[ruleOf(displayNameError)]}>
        <Input autoComplete="nickname" maxLength={60} />
      </Form.Item>
      <Form.Item label="Password" name="password" rules={[ruleOf((v) => newPasswordError(v))]}>
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block size="large" loading={loading}>
        Create Account
      </Button>
    </Form>
  );
}

/**
 * Spec §2 Auth: login and register tabs (fields cleared when switching: each tab mounts a fresh
 * form), a marketing panel; a verified signed-in user goes to /admin (admins) or /.
 */
export function AuthPage() {
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
          Think different. Win big.
        </Typography.Title>
        <Typography.Paragraph>
          In Underdog the least popular choice wins. Four images, one pick per round, 17 rounds:
          outguess the crowd to be the last one standing.
        </Typography.Paragraph>
      </section>
      <Card className="auth__card">
        <Tabs
          activeKey={tab}
          onChange={(key) => setTab(key === 'register' ? 'register' : 'login')}
          destroyOnHidden
          items={[
            { key: 'login', label: 'Login', children: <LoginForm /> },
            { key: 'register', label: 'Register', children: <RegisterForm /> },
          ]}
        />
      </Card>
    </div>
  );
}
