import type { ReactNode } from 'react';
import { App, Button, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { messages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { requestPasswordReset } from './auth-api.ts';
import { emailRule } from './email-rule.ts';

interface ForgotPasswordFormProps {
  onSent: (email: string) => void;
  footer?: ReactNode;
}

/** "Enter your email address to reset your password." (spec 000 §2); used on /login and /resetpassword. */
export function ForgotPasswordForm({ onSent, footer }: ForgotPasswordFormProps) {
  const { message } = App.useApp();
  const reset = useMutation({
    mutationFn: requestPasswordReset,
    onSuccess: (_answer, email) => {
      void message.success(messages.resetEmailSent);
      onSent(email.trim());
    },
    onError: (error) => void message.error(describeError(error)),
  });
  return (
    <>
      <p>Enter your email address to reset your password.</p>
      <Form
        name="forgot-password"
        layout="vertical"
        requiredMark={false}
        onFinish={(values: { email: string }) => reset.mutate(values.email)}
      >
        <Form.Item label="Email" name="email" rules={[emailRule]} validateTrigger="onBlur">
          <Input type="email" autoComplete="email" autoFocus />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={reset.isPending}>
          Send
        </Button>
      </Form>
      {footer}
    </>
  );
}
