import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation, useMatches } from 'react-router';
import { getStoredToken } from '../api/auth-token.ts';

/** The `handle` of a guarded route that is public too (spec 000 §2 /sharing): what it shows signed out. */
export interface SignedOutHandle {
  signedOut: ReactNode;
}

function signedOutFace(handle: unknown): ReactNode | undefined {
  return handle !== null && typeof handle === 'object' && 'signedOut' in handle
    ? (handle as SignedOutHandle).signedOut
    : undefined;
}

/**
 * Spec 000 §2 route guard: without a stored token, go to /login?returnUrl={path}, unless the route names what it
 * shows signed out instead (its signed-in page, and that page's calls, are then never reached).
 */
export function RequireAuth() {
  const location = useLocation();
  const matches = useMatches();
  if (getStoredToken() === null) {
    const signedOut = matches.map((match) => signedOutFace(match.handle)).find((face) => face !== undefined);
    if (signedOut !== undefined) return <>{signedOut}</>;
    const returnUrl = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?returnUrl=${encodeURIComponent(returnUrl)}`} replace />;
  }
  return <Outlet />;
}
