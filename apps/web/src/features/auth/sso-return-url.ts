const SSO_RETURN_URL_KEY = 'cumulo.ssoReturnUrl';

/** Keeps the page a sign-in started for: the provider's round trip brings the browser back to /login without it. */
export function rememberSsoReturnUrl(returnUrl: string | null): void {
  if (returnUrl) sessionStorage.setItem(SSO_RETURN_URL_KEY, returnUrl);
  else sessionStorage.removeItem(SSO_RETURN_URL_KEY);
}

/** The page the sign-in started for, once. */
export function takeSsoReturnUrl(): string | null {
  const returnUrl = sessionStorage.getItem(SSO_RETURN_URL_KEY);
  sessionStorage.removeItem(SSO_RETURN_URL_KEY);
  return returnUrl;
}
