/**
 * First path segments reachable without a stored token (spec 000 §2, 002 §2). The 'Please sign in again'
 * modal is not shown on them either: spec 000 §8 names login, sharing and desktop, and a public page
 * such as /verify has no session to renew.
 */
const PUBLIC_SEGMENTS = [
  'login',
  'oktalogin',
  'signup',
  'register',
  'postsignup',
  'verify',
  'verifyemail',
  'resetpassword',
  'reset_password',
  'desktop',
  'desktopbilling',
  'sharing',
] as const;

export function isPublicPath(pathname: string): boolean {
  const [, first = '', second = ''] = pathname.split('/');
  const segment = first.toLowerCase();
  // /sharing/{token} is the public link page. /sharing alone is public only signed out (it explains share
  // links); signed in it is the organisation's list, where an expired session gets the modal.
  if (segment === 'sharing') return second !== '';
  return (PUBLIC_SEGMENTS as readonly string[]).includes(segment);
}

/** A returnUrl is followed only when it is a path of this app (no other origin). */
export function safeReturnUrl(value: string | null): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}
