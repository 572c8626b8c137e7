import { useCallback } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { useEndSession } from '../../api/session.ts';

/**
 * Sign out: tell the server (revokes the token), end the local session and go to
 * /login?returnUrl={path} (spec 000 §4), so signing in again returns to the same screen.
 */
export function useSignOut(): () => Promise<void> {
  const endSession = useEndSession();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  return useCallback(async () => {
    try {
      await api.post('/authentication/logout', undefined, { silent: true });
    } catch {
      // The local session ends even when the server cannot be reached.
    }
    endSession();
    navigate(`/login?returnUrl=${encodeURIComponent(pathname + search)}`, { replace: true });
  }, [endSession, navigate, pathname, search]);
}
