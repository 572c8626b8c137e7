/** Every TanStack Query key of the app, so invalidations name the same key the queries use. */
export const queryKeys = {
  profile: ['users', '_me'] as const,
  signupInfo: (token: string) => ['user', 'signupinfo', token] as const,
};
