import { CheckCircleFilled, MailOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@apollo/client';
import { Alert, Button, Card, Form, Input, Result, Spin, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { Navigate, useParams } from 'react-router-dom';
import { isNetworkFailure, messageOf } from '../../../app/errors';
import { useToast } from '../../../app/toast';
import { useGo } from '../../../app/useGo';
import { ResendVerificationDocument, VerifyEmailDocument } from '../../../gql/operations';
import { codeError, emailError, ruleOf } from '../../auth/validation';
import { useSession } from '../../session/hooks/useSession';

/** Spec §9: after a successful verification, go home after 2 s. */
export const VERIFIED_REDIRECT_MS = 2_000;

type State =
  | { kind: 'entry' }
  | { kind: 'verifying' }
  | { kind: 'success' }
  | { kind: 'error'; message: string };

/** Spec §2: e-mail verification by code (or the link's token), resend, the 2 s redirect. */
export function VerifyEmailPage() {
  const { token } = useParams();
  const { user, loading, setUser } = useSession();
  const [state, setState] = useState<State>(token ? { kind: 'verifying' } : { kind: 'entry' });
  const [verify] = useMutation(VerifyEmailDocument);
  const [resend, { loading: resending }] = useMutation(ResendVerificationDocument);
  const [form] = Form.useForm<{ code: string; email: string }>();
  const toast = useToast();
  const { t } = useTranslation();
  const go = useGo();
  const tokenTried = useRef(false);
  // Set before the mutation: its result lands in the normalized cache (the session's user turns
  // verified) before it resolves, and the success screen with its 2 s redirect must win over the
  // already-verified redirect, which is for users who arrive verified.
  const triedHere = useRef(false);

  const run = async (variables: { code?: string; email?: string; token?: string }) => {
    setState({ kind: 'verifying' });
    triedHere.current = true;
    try {
      const { data } = await verify({ variables });
      if (!data) throw new Error('no data');
      setState({ kind: 'success' });
      // Null when verified by e-mail and code without a session: nobody to sign in here.
      if (data.verifyEmail) setUser(data.verifyEmail);
      toast({ title: t('verify.verified') });
    } catch (error) {
      const message = isNetworkFailure(error)
        ? t('verify.networkError')
        : messageOf(error, t('verify.verifyError'));
      setState({ kind: 'error', message });
    }
  };

  useEffect(() => {
    if (!token || tokenTried.current) return;
    tokenTried.current = true;
    void run({ token });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per link token
  }, [token]);

  useEffect(() => {
    if (state.kind !== 'success') return;
    const timer = setTimeout(() => go('/', { replace: true }), VERIFIED_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [state.kind, go]);

  if (loading) {
    return (
      <div className="page-center">
        <Spin size="large" aria-label={t('common.loading')} />
      </div>
    );
  }
  if (user?.isEmailVerified && !triedHere.current) return <Navigate to="/" replace />;

  const resendTo = async () => {
    const email = user?.email ?? (form.getFieldValue('email') as string | undefined) ?? '';
    if (emailError(email)) {
      await form.validateFields(['email']).catch(() => undefined);
      return;
    }
    try {
      await resend({ variables: { email } });
      toast({
        title: t('verify.emailSent'),
        description: t('verify.emailSentText'),
      });
    } catch {
      toast({
        title: t('verify.emailSendError'),
        description: t('verify.emailSendErrorText'),
        variant: 'destructive',
      });
    }
  };

  if (state.kind === 'success') {
    return (
      <Result
        icon={<CheckCircleFilled style={{ color: '#15803d' }} />}
        title={<h1 className="result-title">{t('verify.verified')}</h1>}
        subTitle={t('verify.redirecting')}
      />
    );
  }
  return (
    <div className="page narrow">
      <Card>
        <Typography.Title level={1} className="page-title">
          <MailOutlined aria-hidden="true" /> {t('verify.title')}
        </Typography.Title>
        <Typography.Paragraph className="muted">
          {user ? t('verify.enterCodeFor', { email: user.email }) : t('verify.enterCode')}
        </Typography.Paragraph>
        {state.kind === 'error' && (
          <Alert type="error" showIcon message={state.message} className="spaced" />
        )}
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          onFinish={(values) =>
            void run({ code: values.code, email: user ? undefined : values.email.trim() })
          }
        >
          {!user && (
            <Form.Item label={t('auth.email')} name="email" rules={[ruleOf(emailError)]}>
              <Input type="email" autoComplete="email" />
            </Form.Item>
          )}
          <Form.Item label={t('verify.code')} name="code" rules={[ruleOf(codeError)]}>
            <Input
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              className="code-input"
            />
          </Form.Item>
          <Button
            type="primary"
            htmlType="submit"
            block
            size="large"
            loading={state.kind === 'verifying'}
          >
            {state.kind === 'verifying' ? t('verify.verifying') : t('verify.verifyEmail')}
          </Button>
        </Form>
        <Button type="link" onClick={() => void resendTo()} loading={resending} className="spaced">
          {t('verify.resend')}
        </Button>
      </Card>
    </div>
  );
}
