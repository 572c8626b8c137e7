import { useQuery } from '@tanstack/react-query';
import { userProfile, type UserProfile } from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { queryKeys } from '../../api/query-keys.ts';

async function fetchProfile(): Promise<UserProfile> {
  return userProfile.parse(await api.get('/users/_me'));
}

/** The signed-in user (GET /api/users/_me); idle while no token is stored. */
export function useProfile() {
  return useQuery({
    queryKey: queryKeys.profile,
    queryFn: fetchProfile,
    enabled: getStoredToken() !== null,
  });
}
