import { Link, useParams } from 'react-router';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { SsoButton, useAuthProviders } from './SsoButtons.tsx';

/** /oktalogin/:referrer_id? — enterprise single sign-on through the OpenID Connect provider the server configures. */
export function OktaLoginPage() {
  const { referrer_id: referrerId } = useParams();
  const providers = useAuthProviders();
  const loginLink = <Link to={referrerId ? `/login/${referrerId}` : '/login'}>Go to login</Link>;
  if (providers.isPending) {
    return (
      <AuthCard title="Enterprise single sign-on">
        <PageSpinner />
      </AuthCard>
    );
  }
  const oidc = providers.data?.oidc;
  if (!oidc) {
    return (
      <AuthCard title="Enterprise single sign-on">
        <p>Single sign-on is not configured on this server. Sign in with your email and password instead.</p>
        {loginLink}
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Enterprise single sign-on">
      <p>Sign in with your organisation&apos;s account.</p>
      <SsoButton service="OIDC">Sign in with {oidc.name}</SsoButton>
      <p className="auth-footer">{loginLink}</p>
    </AuthCard>
  );
}
