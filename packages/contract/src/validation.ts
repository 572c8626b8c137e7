import { messages } from './messages.ts';

/** Allowed password characters: letters, digits and the spec's specials @$!%*#?&. */
export const PASSWORD_PATTERN = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z\d@$!%*#?&]{8,}$/;
/** A pragmatic e-mail pattern: one @, no spaces, a dot in the domain. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PASSWORD_MAX_LENGTH = 128;
export const EMAIL_MAX_LENGTH = 254;
export const NAME_MAX_LENGTH = 100;

/** True when the password meets the spec 000 §5 rule. */
export function isStrongPassword(password: string): boolean {
  return password.length <= PASSWORD_MAX_LENGTH && PASSWORD_PATTERN.test(password);
}

/** Reset-e-mail rule of spec 000 §5: the message to show, or null when valid. */
export function validateEmail(email: string | undefined | null): string | null {
  const value = (email ?? '').trim();
  if (!value) return messages.emailRequired;
  if (value.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(value)) return messages.emailInvalid;
  return null;
}

export interface SignupFormValues {
  email: string;
  password: string;
  confirmPassword: string;
  firstName: string;
  lastName: string;
  terms: boolean;
}

/** Sign-up form rules of spec 000 §5, in the order a user meets them; null when the form may be sent. */
export function validateSignupForm(form: SignupFormValues): string | null {
  if (!form.email.trim() || !form.password || !form.confirmPassword) return messages.signupMissing;
  if (form.password !== form.confirmPassword) return messages.signupMismatch;
  const emailError = validateEmail(form.email);
  if (emailError) return emailError;
  if (!isStrongPassword(form.password)) return messages.passwordRules;
  if (!form.firstName.trim()) return messages.firstNameRequired;
  if (!form.lastName.trim()) return messages.lastNameRequired;
  if (!form.terms) return messages.termsRequired;
  return null;
}

/** Invite-completion rules of spec 000 §5. */
export function validateCompletionForm(form: { password: string; confirmPassword: string }): string | null {
  if (!form.password || !form.confirmPassword) return messages.completionMissing;
  if (form.password !== form.confirmPassword) return messages.completionMismatch;
  if (!isStrongPassword(form.password)) return messages.passwordRules;
  return null;
}

export interface NewPasswordState {
  password: string;
  confirmPassword: string;
  passwordVisited: boolean;
  repasswordVisited: boolean;
}

/**
 * The reset / new-password rule of spec 000 §4: tooltips only after a field was focused,
 * and the submit button enabled only when both were focused, the password is strong and both match.
 */
export function newPasswordState(state: NewPasswordState): {
  passwordTooltip: string | null;
  confirmTooltip: string | null;
  canSubmit: boolean;
} {
  const strong = isStrongPassword(state.password);
  const same = state.password === state.confirmPassword;
  return {
    passwordTooltip: state.passwordVisited && !strong ? messages.passwordRules : null,
    confirmTooltip: state.repasswordVisited && !same ? messages.passwordMismatch : null,
    canSubmit: state.passwordVisited && state.repasswordVisited && strong && same,
  };
}
