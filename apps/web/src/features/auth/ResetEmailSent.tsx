import { Link } from 'react-router';
import { App, Button, Flex } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { messages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { requestPasswordReset } from './auth-api.ts';

interface ResetEmailSentProps {
  email: string;
  /** On the sign-in screen 'Login' only brings back its own login panel, keeping the page's returnUrl. */
  onLogin?: () => void;
}

/** The reset-email-sent state of spec 000 §2, with its links 'resend email' and 'Login'. */
export function ResetEmailSent({ email, onLogin }: ResetEmailSentProps) {
  const { message } = App.useApp();
  const resend = useMutation({
    mutationFn: () => requestPasswordReset(email),
    onSuccess: () => void message.success(messages.resetEmailSent),
    onError: (error) => void message.error(describeError(error)),
  });
  return (
    <div className="auth-center">
      <MailOutlined style={{ fontSize: 64, color: '#1668dc', marginBottom: 16 }} aria-hidden />
      <p style={{ marginBottom: 4 }}>We sent you a reset email to:</p>
      <p>
        <strong>{email}</strong>
      </p>
      <p>Please check your email and use the reset link to reset your password.</p>
      <Flex justify="center" gap={16}>
        <Button type="link" loading={resend.isPending} onClick={() => resend.mutate()}>
          resend email
        </Button>
        <Link
          to="/login"
          onClick={
            onLogin &&
            ((event) => {
              event.preventDefault();
              onLogin();
            })
          }
        >
          Login
        </Link>
      </Flex>
    </div>
  );
}
