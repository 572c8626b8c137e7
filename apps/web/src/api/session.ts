import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { clearStoredSession } from './auth-token.ts';
import { realtime } from './realtime.ts';

/** Ends the local session: real-time hub stopped, local storage and cached server state cleared. */
export function useEndSession(): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => {
    realtime.stop();
    clearStoredSession();
    queryClient.clear();
  }, [queryClient]);
}
