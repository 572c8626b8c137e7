import { useEffect, useRef, useState } from 'react';
import { Alert, App, Button, Flex, Form, Input, Modal } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import {
  RECOVERY_CODE_SHAPE,
  SSO_ERROR_MESSAGES,
  SSO_SERVICES,
  messages,
  type SsoService,
} from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { storeToken } from '../../api/auth-token.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { safeReturnUrl } from '../../app/public-paths.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import {
  resendVerificationEmail,
  respondToMfa,
  signIn,
  signInWithSso,
  type LoginAnswer,
} from './auth-api.ts';
import { emailRule } from './email-rule.ts';
import { ForgotPasswordForm } from './ForgotPasswordForm.tsx';
import { ResetEmailSent } from './ResetEmailSent.tsx';
import { LazyGoogleSignIn } from './LazyGoogleSignIn.tsx';
import { takeSsoReturnUrl } from './sso-return-url.ts';

type Panel =
  { kind: 'login' } | { kind: 'forgot' } | { kind: 'sent'; email: string } | { kind: 'mfa'; session: string };

interface Credentials {
  email: string;
  password: string;
}

const MFA_CODE_LENGTH = 6;
/** `xxxxx-xxxxx`: the dash the codes are shown with. */
const RECOVERY_CODE_FIELD_LENGTH = 11;
/** Refusals of the code itself, shown in the MFA panel next to the field rather than as a passing toast. */
const MFA_CODE_REFUSALS = new Set(['WRONG_MFA_CODE', 'MFA_CODE_USED', 'WRONG_RECOVERY_CODE']);

const isSsoService = (value: string | null): value is SsoService =>
  SSO_SERVICES.some((service) => service === value);

/** The refusal a single sign-on came back with, by code: the page never shows text taken from the URL. */
const ssoErrorMessage = (code: string) =>
  Object.entries(SSO_ERROR_MESSAGES).find(([known]) => known === code)?.[1] ?? messages.generic;

const PANEL_TITLES: Record<Panel['kind'], string> = {
  login: 'Sign in to Cumulo',
  forgot: 'Forgot password',
  sent: 'Check your email',
  mfa: 'Multi-factor authentication',
};

/** /login/:referrer_id? — sign-in, forgot password, reset-email-sent and MFA code panels (spec 000 §2, §4). */
export function LoginPage() {
  const { referrer_id: referrerId } = useParams();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const [panel, setPanel] = useState<Panel>({ kind: 'login' });
  const [unverifiedEmail, setUnverifiedEmail] = useState<string | null>(null);
  const [mfaCode, setMfaCode] = useState('');
  // The MFA panel takes the authenticator's code, or one of the recovery codes after "Use a recovery code".
  const [useRecoveryCode, setUseRecoveryCode] = useState(false);
  const [mfaRefusal, setMfaRefusal] = useState<string | null>(null);

  const finishSignIn = async (jwtToken: string) => {
    storeToken(jwtToken);
    await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
    navigate(safeReturnUrl(searchParams.get('returnUrl')), { replace: true });
  };

  // A password or a single sign-on answers alike: a session, or the MFA panel first.
  const onSignInAnswer = async (answer: LoginAnswer) => {
    if (answer.challenge === 1 && answer.session) {
      setMfaCode('');
      setMfaRefusal(null);
      setUseRecoveryCode(false);
      setPanel({ kind: 'mfa', session: answer.session });
    } else if (answer.jwtToken) {
      await finishSignIn(answer.jwtToken);
    } else {
      void message.error(messages.generic);
    }
  };

  const login = useMutation({
    mutationFn: (credentials: Credentials) =>
      signIn({ username: credentials.email.trim(), password: credentials.password, referrerId }),
    onSuccess: onSignInAnswer,
    onError: (error, credentials) => {
      if (error instanceof ApiError && error.status === 403 && error.code === 'EMAIL_NOT_VERIFIED') {
        setUnverifiedEmail(credentials.email.trim());
        return;
      }
      void message.error(describeError(error));
    },
  });

  const sso = useMutation({
    mutationFn: signInWithSso,
    onSuccess: onSignInAnswer,
    onError: (error) => void message.error(describeError(error)),
  });

  // A single sign-on comes back as /login#sso=<code>&service=… or #sso_error=<code> (the server's callback).
  const ssoFragment = location.hash.startsWith('#sso') ? location.hash.slice(1) : '';
  // The code works once: a second run of the effect (React's StrictMode) must not send it again.
  const handledSsoFragment = useRef('');
  useEffect(() => {
    if (!ssoFragment || handledSsoFragment.current === ssoFragment) return;
    handledSsoFragment.current = ssoFragment;
    const fragment = new URLSearchParams(ssoFragment);
    // The code must not stay in the address bar or the history; the page the sign-in started for comes back.
    const returnUrl = takeSsoReturnUrl();
    const search = returnUrl ? `?${new URLSearchParams({ returnUrl }).toString()}` : location.search;
    void navigate({ pathname: location.pathname, search }, { replace: true });
    const code = fragment.get('sso');
    const service = fragment.get('service');
    const refusal = fragment.get('sso_error');
    if (code && isSsoService(service)) sso.mutate({ service, token: code });
    else void message.error(ssoErrorMessage(refusal ?? ''));
    // Runs once per fragment; the mutation and navigation objects change identity on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ssoFragment]);

  const mfa = useMutation({
    mutationFn: respondToMfa,
    onMutate: () => setMfaRefusal(null),
    onSuccess: finishSignIn,
    onError: (error) => {
      if (error instanceof ApiError && error.code !== undefined && MFA_CODE_REFUSALS.has(error.code)) {
        // A code already used stays refused for the rest of its 30 s: the panel says so until the next try.
        setMfaRefusal(describeError(error));
        setMfaCode('');
        return;
      }
      void message.error(describeError(error));
      // The MFA step has a time limit; once it has passed, only the password step can start a new one.
      if (error instanceof ApiError && error.code === 'MFA_SESSION') setPanel({ kind: 'login' });
    },
  });

  const resend = useMutation({
    mutationFn: resendVerificationEmail,
    onSuccess: () => {
      void message.success(messages.resetEmailSent);
      setUnverifiedEmail(null);
    },
    onError: (error) => void message.error(describeError(error)),
  });

  const backToLogin = (
    <Button type="link" onClick={() => setPanel({ kind: 'login' })}>
      Back to login
    </Button>
  );
  // The authenticator field keeps digits only; the server checks the code itself.
  const codeIsComplete = useRecoveryCode
    ? RECOVERY_CODE_SHAPE.test(mfaCode.trim())
    : mfaCode.length === MFA_CODE_LENGTH;
  const switchCodeKind = () => {
    setUseRecoveryCode(!useRecoveryCode);
    setMfaCode('');
    setMfaRefusal(null);
  };

  return (
    <AuthCard title={PANEL_TITLES[panel.kind]}>
      {panel.kind === 'login' && (
        <>
          <Form
            name="login"
            layout="vertical"
            requiredMark={false}
            onFinish={(values: Credentials) => login.mutate(values)}
          >
            <Form.Item label="Email" name="email" rules={[emailRule]} validateTrigger="onBlur">
              <Input type="email" autoComplete="username" autoFocus />
            </Form.Item>
            <Form.Item
              label="Password"
              name="password"
              rules={[{ required: true, message: 'Please enter your password.' }]}
            >
              <Input.Password autoComplete="current-password" />
            </Form.Item>
            <Flex justify="flex-end" style={{ marginTop: -12, marginBottom: 12 }}>
              <Button type="link" style={{ paddingInline: 0 }} onClick={() => setPanel({ kind: 'forgot' })}>
                Forgot password?
              </Button>
            </Flex>
            <Button type="primary" htmlType="submit" block loading={login.isPending}>
              Sign in
            </Button>
          </Form>
          <LazyGoogleSignIn label="Sign in with Google" />
          <p className="auth-footer">
            Don&apos;t have an account?{' '}
            <Link to={referrerId ? `/signup/${referrerId}` : '/signup'}>Sign up</Link>
          </p>
        </>
      )}

      {panel.kind === 'forgot' && (
        <ForgotPasswordForm
          onSent={(email) => setPanel({ kind: 'sent', email })}
          footer={<Flex justify="center">{backToLogin}</Flex>}
        />
      )}

      {panel.kind === 'sent' && (
        <ResetEmailSent email={panel.email} onLogin={() => setPanel({ kind: 'login' })} />
      )}

      {panel.kind === 'mfa' && (
        <>
          <p>
            {useRecoveryCode
              ? 'Enter one of your recovery codes. Each code works once.'
              : 'Enter the 6-digit code from your authenticator app.'}
          </p>
          {mfaRefusal !== null && (
            <Alert type="error" showIcon role="alert" style={{ marginBottom: 16 }} title={mfaRefusal} />
          )}
          <Form
            name="mfa"
            layout="vertical"
            requiredMark={false}
            onFinish={() => mfa.mutate({ userCode: mfaCode.trim(), session: panel.session })}
          >
            {useRecoveryCode ? (
              <Form.Item label="Recovery code" htmlFor="mfa-recovery-code">
                <Input
                  id="mfa-recovery-code"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="xxxxx-xxxxx"
                  maxLength={RECOVERY_CODE_FIELD_LENGTH}
                  autoFocus
                  value={mfaCode}
                  onChange={(event) => setMfaCode(event.target.value)}
                />
              </Form.Item>
            ) : (
              <Form.Item label="Code" htmlFor="mfa-code">
                <Input
                  id="mfa-code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={MFA_CODE_LENGTH}
                  autoFocus
                  value={mfaCode}
                  onChange={(event) => setMfaCode(event.target.value.replace(/\D/g, ''))}
                />
              </Form.Item>
            )}
            <Button type="primary" htmlType="submit" block disabled={!codeIsComplete} loading={mfa.isPending}>
              Verify
            </Button>
          </Form>
          <Flex justify="center" style={{ marginTop: 8 }}>
            <Button type="link" onClick={switchCodeKind}>
              {useRecoveryCode ? 'Use your authenticator app' : 'Use a recovery code'}
            </Button>
          </Flex>
          <Flex justify="center">{backToLogin}</Flex>
        </>
      )}

      <Modal
        open={unverifiedEmail !== null}
        title={messages.emailVerificationFailed}
        closable={false}
        onCancel={() => setUnverifiedEmail(null)}
        footer={[
          <Button key="close" onClick={() => setUnverifiedEmail(null)}>
            Close
          </Button>,
          <Button
            key="resend"
            type="primary"
            loading={resend.isPending}
            onClick={() => unverifiedEmail && resend.mutate(unverifiedEmail)}
          >
            Resend verification email
          </Button>,
        ]}
      >
        <p>{messages.emailNotVerified}</p>
      </Modal>
    </AuthCard>
  );
}
