import { Suspense, lazy, useEffect, useState } from 'react';
import { fetchAuthProviders } from './auth-api.ts';

const GoogleSignIn = lazy(() => import('./SsoButtons.tsx').then((m) => ({ default: m.GoogleSignIn })));

/**
 * The Google button of /login, loaded only when the server offers Google: /login's first load stays within its
 * script budget (auth.e2e.ts), and a server without Google never ships the button's code.
 */
export function LazyGoogleSignIn({ label }: { label: string }) {
  const [offered, setOffered] = useState(false);
  useEffect(() => {
    let live = true;
    fetchAuthProviders().then(
      (providers) => live && setOffered(providers.google),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  if (!offered) return null;
  return (
    <Suspense fallback={null}>
      <GoogleSignIn label={label} />
    </Suspense>
  );
}
