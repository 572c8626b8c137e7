import { useState } from 'react';
import { Alert, App, Button, Card, Flex, Form, Input, Typography } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router';
import { messages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { storeToken } from '../../api/auth-token.ts';
import { realtime } from '../../api/realtime.ts';
import { NewPasswordFields, usePasswordPair } from '../../ui/NewPasswordFields.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { changePassword } from './profile-api.ts';

/** /profile/changepassword (spec 002 §2, §5). The server revokes every earlier token and answers a new one. */
export function ChangePasswordPage() {
  useDocumentTitle('Change password');
  const { message } = App.useApp();
  const [oldPassword, setOldPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const { pair, setPair, rule } = usePasswordPair();
  const canSubmit = oldPassword.length > 0 && rule.canSubmit;

  const change = useMutation({
    mutationFn: changePassword,
    onSuccess: (answer) => {
      storeToken(answer.jwtToken);
      realtime.restart();
      void message.success(answer.message || messages.passwordChanged);
      setOldPassword('');
      setPair({ password: '', confirmPassword: '', passwordVisited: false, repasswordVisited: false });
    },
    onError: (error) => setProblem(describeError(error)),
  });

  return (
    <Card style={{ maxWidth: 560 }}>
      <Typography.Title level={2} style={{ marginTop: 0 }}>
        Change password
      </Typography.Title>
      <Form
        name="change-password"
        layout="vertical"
        onFinish={() => {
          if (!canSubmit) return;
          setProblem(null);
          change.mutate({ old_password: oldPassword, new_password: pair.password });
        }}
      >
        <Form.Item label="Current Password" htmlFor="change-old-password" required>
          <Input.Password
            id="change-old-password"
            autoComplete="current-password"
            value={oldPassword}
            onChange={(event) => setOldPassword(event.target.value)}
          />
        </Form.Item>
        <NewPasswordFields
          idPrefix="change"
          pair={pair}
          onChange={setPair}
          mismatchText={messages.changePasswordMismatch}
        />
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Flex gap={16} align="center">
          <Button type="primary" htmlType="submit" disabled={!canSubmit} loading={change.isPending}>
            Change password
          </Button>
          <Link to="/profile">Cancel</Link>
        </Flex>
      </Form>
    </Card>
  );
}
