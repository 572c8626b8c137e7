import type { ReactNode } from 'react';
import { App, Button, Flex } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { messages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { requestPasswordReset } from './auth-api.ts';

interface ResetEmailSentProps {
  email: string;
  /** 'Login' on the reset screen, 'Back to login' on the sign-in screen. */
  loginAction: ReactNode;
}

/** The reset-email-sent state of spec 000 §2, with 'resend email'. */
export function ResetEmailSent({ email, loginAction }: ResetEmailSentProps) {
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
        {loginAction}
      </Flex>
    </div>
  );
}
