import { useSearchParams } from 'react-router';
import { CompleteSignupForm } from './CompleteSignupForm.tsx';
import { SignupForm } from './SignupForm.tsx';

/**
 * /signup and /register (optional :referrer_id). With a `token` query the invited user completes an account
 * prepared by an administrator (signup info); otherwise it is the self-service form (spec 000 §2).
 */
export function SignupPage() {
  const [searchParams] = useSearchParams();
  const completionToken = searchParams.get('token');
  return completionToken ? <CompleteSignupForm token={completionToken} /> : <SignupForm />;
}
