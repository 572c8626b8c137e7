import { Navigate, Outlet, useLocation } from 'react-router';
import { getStoredToken } from '../api/auth-token.ts';

/** Spec 000 §2 route guard: without a stored token, go to /login?returnUrl={path}. */
export function RequireAuth() {
  const location = useLocation();
  if (getStoredToken() === null) {
    const returnUrl = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?returnUrl=${encodeURIComponent(returnUrl)}`} replace />;
  }
  return <Outlet />;
}
