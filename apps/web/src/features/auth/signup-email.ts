const SIGNUP_EMAIL_KEY = 'cumulo.signupEmail';

/** Remembers the address just signed up with, so /postSignup survives a reload. */
export function rememberSignupEmail(email: string): void {
  sessionStorage.setItem(SIGNUP_EMAIL_KEY, email);
}

export function rememberedSignupEmail(): string | null {
  return sessionStorage.getItem(SIGNUP_EMAIL_KEY);
}
