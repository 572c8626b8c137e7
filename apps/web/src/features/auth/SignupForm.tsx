import { useState } from 'react';
import { Alert, App, Button, Checkbox, Divider, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { messages, validateSignupForm } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { NewPasswordFields, usePasswordPair } from '../../ui/NewPasswordFields.tsx';
import { signUp, type SignupPayload } from './auth-api.ts';
import { InvitationCheck } from './InvitationCheck.tsx';
import { rememberSignupEmail } from './signup-email.ts';
import { GoogleSignIn, SsoButton, useAuthProviders } from './SsoButtons.tsx';

const TITLE = 'Create your Cumulo account';

/**
 * Self-service and invited sign-up (spec 000 §2, §3, §5). An invitation link is asked about first
 * (GET /user/signupinfo): a canceled, used or expired one says so at once, before the visitor picks a password,
 * and offers no sign-up that would start an organisation of their own instead.
 */
export function SignupForm() {
  const [searchParams] = useSearchParams();
  const inviteToken = searchParams.get('invite_token');
  if (inviteToken === null) return <SignupFields inviteToken={null} invite={null} />;
  return (
    <InvitationCheck token={inviteToken} title={TITLE}>
      {(info) => (
        <SignupFields
          inviteToken={inviteToken}
          invite={{ email: info.email, firstName: info.firstname, lastName: info.lastname }}
        />
      )}
    </InvitationCheck>
  );
}

function SignupFields({
  inviteToken,
  invite,
}: {
  inviteToken: string | null;
  invite: { email: string; firstName: string; lastName: string } | null;
}) {
  const { referrer_id: pathReferrer } = useParams();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const referrerId = pathReferrer ?? searchParams.get('referrer_id');

  const [email, setEmail] = useState(invite?.email ?? '');
  const [firstName, setFirstName] = useState(invite?.firstName ?? '');
  const [lastName, setLastName] = useState(invite?.lastName ?? '');
  const [company, setCompany] = useState('');
  const [terms, setTerms] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const { pair, setPair } = usePasswordPair();

  const register = useMutation({
    mutationFn: (payload: SignupPayload) => signUp(payload),
    onSuccess: (_answer, payload) => {
      void message.success(messages.signupDone);
      if (inviteToken) {
        navigate('/login', { replace: true });
        return;
      }
      rememberSignupEmail(payload.email);
      navigate('/postSignup', { state: { email: payload.email } });
    },
    onError: (error) => setProblem(describeError(error)),
  });

  const submit = () => {
    const found = validateSignupForm({
      email,
      password: pair.password,
      confirmPassword: pair.confirmPassword,
      firstName,
      lastName,
      terms,
    });
    setProblem(found);
    if (found) return;
    register.mutate({
      email: email.trim().toLowerCase(),
      password: pair.password,
      first_name: firstName.trim(),
      last_name: lastName.trim(),
      company: company.trim() || null,
      referrer_id: referrerId,
      promo_code: searchParams.get('promo_code'),
      invite_token: inviteToken,
    });
  };

  return (
    <AuthCard title={TITLE}>
      <Form name="signup" layout="vertical" onFinish={submit}>
        <Form.Item label="Email" htmlFor="signup-email" required>
          <Input
            id="signup-email"
            type="email"
            autoComplete="email"
            value={email}
            disabled={Boolean(invite)}
            onChange={(event) => setEmail(event.target.value)}
          />
        </Form.Item>
        <NewPasswordFields
          idPrefix="signup"
          pair={pair}
          onChange={setPair}
          passwordLabel="Password"
          confirmLabel="Confirm Password"
        />
        <Form.Item label="First Name" htmlFor="signup-first-name" required>
          <Input
            id="signup-first-name"
            autoComplete="given-name"
            value={firstName}
            onChange={(event) => setFirstName(event.target.value)}
          />
        </Form.Item>
        <Form.Item label="Last Name" htmlFor="signup-last-name" required>
          <Input
            id="signup-last-name"
            autoComplete="family-name"
            value={lastName}
            onChange={(event) => setLastName(event.target.value)}
          />
        </Form.Item>
        <Form.Item label="Company" htmlFor="signup-company">
          <Input
            id="signup-company"
            autoComplete="organization"
            placeholder="Optional"
            value={company}
            onChange={(event) => setCompany(event.target.value)}
          />
        </Form.Item>
        <Form.Item>
          <Checkbox checked={terms} onChange={(event) => setTerms(event.target.checked)}>
            I agree to the Terms of Service and Privacy Policy
          </Checkbox>
        </Form.Item>
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" block disabled={!terms} loading={register.isPending}>
          Sign Up
        </Button>
      </Form>
      <GoogleSignIn label="Sign up with Google" />
      {invite && <EnterpriseSignUp />}
      <p className="auth-footer">
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </AuthCard>
  );
}

/**
 * An invitee whose organisation signs in through its OpenID provider accepts there: the provider's verified e-mail
 * must be the invited one, which joins them to the inviting organisation with the invited role.
 */
function EnterpriseSignUp() {
  const providers = useAuthProviders().data;
  if (!providers?.oidc) return null;
  return (
    <>
      {providers.google ? <div style={{ height: 8 }} /> : <Divider plain>or</Divider>}
      <SsoButton service="OIDC">Sign up with {providers.oidc.name}</SsoButton>
    </>
  );
}
