import { useState } from 'react';
import { Alert, App, Button, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { messages, validateCompletionForm } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { NewPasswordFields, usePasswordPair } from '../../ui/NewPasswordFields.tsx';
import { completeSignup, type SignupInfo } from './auth-api.ts';
import { InvitationCheck } from './InvitationCheck.tsx';

const TITLE = 'Complete your Cumulo account';

/** The invited user's completion page: /signup?token= (spec 000 §2). */
export function CompleteSignupForm({ token }: { token: string }) {
  return (
    <InvitationCheck token={token} title={TITLE}>
      {(info) => <CompletionFields token={token} info={info} />}
    </InvitationCheck>
  );
}

function CompletionFields({ token, info }: { token: string; info: SignupInfo }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const [firstName, setFirstName] = useState(info.firstname);
  const [lastName, setLastName] = useState(info.lastname);
  const [problem, setProblem] = useState<string | null>(null);
  const { pair, setPair } = usePasswordPair();

  const complete = useMutation({
    mutationFn: completeSignup,
    onSuccess: () => {
      void message.success(messages.signupDone);
      navigate('/login', { replace: true });
    },
    onError: (error) => setProblem(describeError(error)),
  });

  const submit = () => {
    const found =
      validateCompletionForm({ password: pair.password, confirmPassword: pair.confirmPassword }) ??
      (!firstName.trim() ? messages.firstNameRequired : null) ??
      (!lastName.trim() ? messages.lastNameRequired : null);
    setProblem(found);
    if (found) return;
    complete.mutate({
      password: pair.password,
      firstname: firstName.trim(),
      lastname: lastName.trim(),
      token,
    });
  };

  return (
    <AuthCard title={TITLE}>
      <Form name="complete-signup" layout="vertical" onFinish={submit}>
        <Form.Item label="Email" htmlFor="complete-email">
          <Input id="complete-email" type="email" value={info.email} disabled />
        </Form.Item>
        <Form.Item label="First Name" htmlFor="complete-first-name" required>
          <Input
            id="complete-first-name"
            autoComplete="given-name"
            value={firstName}
            onChange={(event) => setFirstName(event.target.value)}
          />
        </Form.Item>
        <Form.Item label="Last Name" htmlFor="complete-last-name" required>
          <Input
            id="complete-last-name"
            autoComplete="family-name"
            value={lastName}
            onChange={(event) => setLastName(event.target.value)}
          />
        </Form.Item>
        <NewPasswordFields
          idPrefix="complete"
          pair={pair}
          onChange={setPair}
          passwordLabel="Password"
          confirmLabel="Confirm Password"
        />
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" block loading={complete.isPending}>
          Sign Up
        </Button>
      </Form>
    </AuthCard>
  );
}
