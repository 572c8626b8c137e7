import { Link } from 'react-router';
import { VERIFICATION_LINK_TTL_SECONDS } from '@cumulo/contract';
import { AuthCard } from '../../ui/AuthCard.tsx';

const LINK_VALID_HOURS = VERIFICATION_LINK_TTL_SECONDS / 3600;

/** /verifyemail — the welcome screen of spec 002 §2 (product name: Cumulo). */
export function VerifyEmailPage() {
  return (
    <AuthCard title="Welcome to Cumulo">
      <p>We have received your account request.</p>
      <p>To verify your email address, please click the verification link we sent you by email.</p>
      <p>The link expires after {LINK_VALID_HOURS} hours.</p>
      <Link to="/login">Go to login</Link>
    </AuthCard>
  );
}
