import { Link, useParams } from 'react-router';
import { AuthCard } from '../../ui/AuthCard.tsx';

/** /oktalogin/:referrer_id? — enterprise single sign-on; this server has no identity provider configured. */
export function OktaLoginPage() {
  const { referrer_id: referrerId } = useParams();
  return (
    <AuthCard title="Enterprise single sign-on">
      <p>Single sign-on is not configured on this server. Sign in with your email and password instead.</p>
      <Link to={referrerId ? `/login/${referrerId}` : '/login'}>Go to login</Link>
    </AuthCard>
  );
}
