import { App, Button } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Link, Navigate, useLocation } from 'react-router';
import { messages, VERIFICATION_LINK_TTL_SECONDS } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { resendVerificationEmail } from './auth-api.ts';
import { rememberedSignupEmail } from './signup-email.ts';

function emailFromState(state: unknown): string | null {
  if (state && typeof state === 'object' && 'email' in state && typeof state.email === 'string')
    return state.email;
  return null;
}

const LINK_VALID_HOURS = VERIFICATION_LINK_TTL_SECONDS / 3600;

/** /postSignup: the verification e-mail went out; without a known address, back to /signup (spec 002 §2). */
export function PostSignupPage() {
  const location = useLocation();
  const { message } = App.useApp();
  const email = emailFromState(location.state) ?? rememberedSignupEmail();
  const resend = useMutation({
    mutationFn: resendVerificationEmail,
    onSuccess: () => void message.success(messages.resetEmailSent),
    onError: (error) => void message.error(describeError(error)),
  });
  if (!email) return <Navigate to="/signup" replace />;
  return (
    <AuthCard title="Check your inbox">
      <div className="auth-center">
        <MailOutlined style={{ fontSize: 64, color: '#1668dc', marginBottom: 16 }} aria-hidden />
        <p style={{ marginBottom: 4 }}>We sent a verification email to:</p>
        <p>
          <strong>{email}</strong>
        </p>
        <p>
          Click the link in the email to verify your account. The link is valid for {LINK_VALID_HOURS} hours.
        </p>
        <p>
          Didn&apos;t get it?{' '}
          <Button
            type="link"
            style={{ padding: 0 }}
            loading={resend.isPending}
            onClick={() => resend.mutate(email)}
          >
            resend email
          </Button>
        </p>
        <Link to="/login">Back to login</Link>
      </div>
    </AuthCard>
  );
}
