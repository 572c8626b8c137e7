import { useState } from 'react';
import { Alert, App, Button, Form } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { messages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { NewPasswordFields, usePasswordPair } from '../../ui/NewPasswordFields.tsx';
import { resetPassword } from './auth-api.ts';
import { ForgotPasswordForm } from './ForgotPasswordForm.tsx';
import { ResetEmailSent } from './ResetEmailSent.tsx';

/**
 * /resetpassword/:token? and /reset_password/:token? (token also as query). Three states (spec 000 §2, §4):
 * no token and nothing sent → e-mail form; request sent → confirmation; token → new password form.
 */
export function ResetPasswordPage() {
  const { token: pathToken } = useParams();
  const [searchParams] = useSearchParams();
  const token = pathToken ?? searchParams.get('token');
  const [sentTo, setSentTo] = useState<string | null>(null);

  if (token) return <NewPasswordForm resetToken={token} />;
  return (
    <AuthCard title="Reset your password">
      {sentTo === null ? (
        <ForgotPasswordForm
          onSent={setSentTo}
          footer={
            <p className="auth-footer">
              <Link to="/login">Remember your password? go to login page</Link>
            </p>
          }
        />
      ) : (
        <ResetEmailSent email={sentTo} />
      )}
    </AuthCard>
  );
}

function NewPasswordForm({ resetToken }: { resetToken: string }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const { pair, setPair, rule } = usePasswordPair();
  const [problem, setProblem] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: resetPassword,
    onSuccess: () => {
      void message.success(messages.passwordReset);
      navigate('/login', { replace: true });
    },
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <AuthCard title="Reset your password">
      <p>Create your new password.</p>
      <Form
        name="reset-password"
        layout="vertical"
        onFinish={() => {
          if (!rule.canSubmit) return;
          setProblem(null);
          reset.mutate({ password: pair.password, resetToken });
        }}
      >
        <NewPasswordFields idPrefix="reset" pair={pair} onChange={setPair} />
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" block disabled={!rule.canSubmit} loading={reset.isPending}>
          Reset
        </Button>
      </Form>
      <p className="auth-footer">
        <Link to="/login">Remember your password? go to login page</Link>
      </p>
    </AuthCard>
  );
}
