import { useState } from 'react';
import { Alert, App, Button, Card, Form, Input, Space, Typography } from 'antd';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { RECOVERY_CODE_COUNT, messages, setMfaBody } from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useEndSession } from '../../api/session.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import {
  fetchRecoveryCodesLeft,
  generateMfaSecret,
  recoveryCodesKey,
  renewRecoveryCodes,
  setMfa,
  type MfaSecret,
} from './mfa-api.ts';
import { RecoveryCodes } from './RecoveryCodes.tsx';

function isCode(value: string): boolean {
  return setMfaBody.shape.userCode.safeParse(value).success;
}

function CodeField({ value, onChange }: { value: string; onChange: (code: string) => void }) {
  return (
    <Form.Item label="Code" htmlFor="mfa-setting-code" extra="The 6-digit code from your authenticator app.">
      <Input
        id="mfa-setting-code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        style={{ maxWidth: 200 }}
        value={value}
        onChange={(event) => onChange(event.target.value.replace(/\D/g, ''))}
      />
    </Form.Item>
  );
}

/**
 * How many recovery codes are left, and new ones in place of them all, proven by the current password or a current
 * authenticator code (the server refuses anything else).
 */
function RecoveryCodesStatus({ onRenewed }: { onRenewed: (codes: string[]) => void }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const left = useQuery({ queryKey: recoveryCodesKey, queryFn: fetchRecoveryCodesLeft });
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const renew = useMutation({
    mutationFn: renewRecoveryCodes,
    onSuccess: async (codes) => {
      void message.success(messages.recoveryCodesRenewed);
      setOpen(false);
      setPassword('');
      setCode('');
      onRenewed(codes);
      await queryClient.invalidateQueries({ queryKey: recoveryCodesKey });
    },
    onError: (renewError) => void message.error(describeError(renewError)),
  });
  const proof = isCode(code) ? { userCode: code } : password !== '' ? { password } : null;

  return (
    <section aria-label="Recovery codes" style={{ marginTop: 24 }}>
      <Typography.Title level={4}>Recovery codes</Typography.Title>
      <Typography.Paragraph>
        {left.data === undefined
          ? 'Each recovery code signs you in once when your authenticator app is not at hand.'
          : `${left.data} of ${RECOVERY_CODE_COUNT} recovery codes left. Each signs you in once when your authenticator app is not at hand.`}
      </Typography.Paragraph>
      {open ? (
        <Form name="mfa-renew" layout="vertical" onFinish={() => proof && renew.mutate(proof)}>
          <Typography.Paragraph>
            New codes replace all earlier ones. Enter your current password or a code from your authenticator
            app.
          </Typography.Paragraph>
          <Form.Item label="Current password" htmlFor="mfa-renew-password">
            <Input.Password
              id="mfa-renew-password"
              autoComplete="current-password"
              style={{ maxWidth: 320 }}
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </Form.Item>
          <Form.Item label="Authenticator code" htmlFor="mfa-renew-code">
            <Input
              id="mfa-renew-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              style={{ maxWidth: 200 }}
              value={code}
              onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
            />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" disabled={proof === null} loading={renew.isPending}>
              Generate codes
            </Button>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
          </Space>
        </Form>
      ) : (
        <Button onClick={() => setOpen(true)}>Generate new codes</Button>
      )}
    </section>
  );
}

/** /mfa — not enabled → QR and secret shown → enabled; disabling goes back to the start (spec 002 §4). */
export function MfaPage() {
  useDocumentTitle('Multi-factor authentication');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const endSession = useEndSession();
  const { data: profile, error, isPending } = useProfile();
  const [secret, setSecret] = useState<MfaSecret | null>(null);
  const [code, setCode] = useState('');
  // New recovery codes, held only until the user confirms they are saved: nothing can show them again.
  const [freshCodes, setFreshCodes] = useState<string[] | null>(null);

  const generate = useMutation({
    mutationFn: generateMfaSecret,
    onSuccess: (answer) => {
      setCode('');
      setSecret(answer);
    },
    onError: (generateError) => {
      if (generateError instanceof ApiError && generateError.status === 401) {
        // Spec 002 §8: the session is gone, so sign out and come back here after signing in.
        const returnUrl = `${location.pathname}${location.search}`;
        endSession();
        navigate(`/login?returnUrl=${encodeURIComponent(returnUrl)}`, { replace: true });
        return;
      }
      void message.error(describeError(generateError));
    },
  });

  const update = useMutation({
    mutationFn: setMfa,
    onSuccess: async (recoveryCodes, input) => {
      void message.success(input.enabled ? messages.mfaEnabled : messages.mfaDisabled);
      setSecret(null);
      setCode('');
      if (input.enabled && recoveryCodes.length > 0) setFreshCodes(recoveryCodes);
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      await queryClient.invalidateQueries({ queryKey: recoveryCodesKey });
    },
    onError: (updateError) => void message.error(describeError(updateError)),
  });

  if (isPending) return <PageSpinner />;
  if (!profile) return <Alert type="error" showIcon title={describeError(error)} />;

  return (
    <Card style={{ maxWidth: 640 }}>
      <Typography.Title level={2} style={{ marginTop: 0 }}>
        <SafetyCertificateOutlined /> Multi-factor authentication
      </Typography.Title>

      {freshCodes !== null ? (
        <RecoveryCodes codes={freshCodes} onSaved={() => setFreshCodes(null)} />
      ) : profile.mfa_enabled ? (
        <>
          <Typography.Paragraph>
            Multi-factor authentication is enabled. Signing in asks for a code from your authenticator app.
          </Typography.Paragraph>
          <Typography.Paragraph>To turn it off, enter a current code.</Typography.Paragraph>
          <Form
            name="mfa-disable"
            layout="vertical"
            onFinish={() => isCode(code) && update.mutate({ enabled: false, userCode: code })}
          >
            <CodeField value={code} onChange={setCode} />
            <Button danger htmlType="submit" disabled={!isCode(code)} loading={update.isPending}>
              Disable MFA
            </Button>
          </Form>
          <RecoveryCodesStatus onRenewed={setFreshCodes} />
        </>
      ) : secret === null ? (
        <>
          <Typography.Paragraph>
            Multi-factor authentication is not enabled. Protect your account with a code from an authenticator
            app each time you sign in.
          </Typography.Paragraph>
          <Button type="primary" loading={generate.isPending} onClick={() => generate.mutate()}>
            Enable MFA
          </Button>
        </>
      ) : (
        <>
          <Typography.Paragraph>
            Scan this QR code with your authenticator app, or enter the secret key by hand. Then enter the
            6-digit code the app shows.
          </Typography.Paragraph>
          <Space orientation="vertical" size="middle" style={{ marginBottom: 16 }}>
            <img src={secret.qr_code} alt="QR code for your authenticator app" width={200} height={200} />
            <div>
              <Typography.Text type="secondary">Secret key: </Typography.Text>
              <Typography.Text code copyable>
                {secret.secret}
              </Typography.Text>
            </div>
          </Space>
          <Form
            name="mfa-enable"
            layout="vertical"
            onFinish={() => isCode(code) && update.mutate({ enabled: true, userCode: code })}
          >
            <CodeField value={code} onChange={setCode} />
            <Space>
              <Button type="primary" htmlType="submit" disabled={!isCode(code)} loading={update.isPending}>
                Enable
              </Button>
              <Button onClick={() => setSecret(null)}>Cancel</Button>
            </Space>
          </Form>
        </>
      )}
    </Card>
  );
}
