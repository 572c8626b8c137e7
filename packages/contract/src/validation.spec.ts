import { describe, expect, it } from 'vitest';
import { messages } from './messages.ts';
import {
  isStrongPassword,
  newPasswordState,
  validateCompletionForm,
  validateEmail,
  validateSignupForm,
} from './validation.ts';
import { errorText } from './errors.ts';
import { signupBody } from './api.ts';

const form = {
  email: 'ada@example.com',
  password: 'Secret12',
  confirmPassword: 'Secret12',
  firstName: 'Ada',
  lastName: 'Lovelace',
  terms: true,
};

describe('password rule (spec 000 §5)', () => {
  it.each(['Secret12', 'aB3@$!%*', 'Abcdefg1#?&', 'ABCdef123'])('accepts %s', (p) =>
    expect(isStrongPassword(p)).toBe(true),
  );
  it.each([
    ['too short', 'Secr3t'],
    ['no lowercase', 'SECRET12'],
    ['no uppercase', 'secret12'],
    ['no number', 'Secretss'],
    ['a character outside @$!%*#?&', 'Secret12-'],
    ['a space', 'Secret 12'],
  ])('refuses a password with %s', (_, p) => expect(isStrongPassword(p)).toBe(false));
});

describe('reset e-mail rule', () => {
  it('asks for an e-mail when empty', () => {
    expect(validateEmail('')).toBe(messages.emailRequired);
    expect(validateEmail('   ')).toBe(messages.emailRequired);
    expect(messages.emailRequired).toBe('Please enter an email.');
  });
  it('asks for a valid e-mail when malformed', () => {
    for (const bad of ['ada', 'ada@', '@example.com', 'ada@example', 'a da@example.com']) {
      expect(validateEmail(bad)).toBe('Please enter a valid email.');
    }
  });
  it('accepts a well-formed address', () => expect(validateEmail('ada@example.com')).toBeNull());
});

describe('sign-up form (spec 000 §5)', () => {
  it('needs e-mail, password and confirmation', () => {
    for (const missing of ['email', 'password', 'confirmPassword'] as const) {
      expect(validateSignupForm({ ...form, [missing]: '' })).toBe(
        'Incorrect user or password or confirm password',
      );
    }
  });
  it('needs matching passwords', () => {
    expect(validateSignupForm({ ...form, confirmPassword: 'Secret13' })).toBe(
      'please input correct password and confirm password',
    );
  });
  it('applies the password rule with its tooltip text', () => {
    expect(validateSignupForm({ ...form, password: 'weakpass', confirmPassword: 'weakpass' })).toBe(
      'Password requirements were not met. Password requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number.',
    );
  });
  it('needs the terms box ticked; company is optional', () => {
    expect(validateSignupForm({ ...form, terms: false })).toBe(messages.termsRequired);
    expect(validateSignupForm(form)).toBeNull();
  });
  it('the server schema lower-cases the e-mail and leaves company optional', () => {
    const parsed = signupBody.parse({
      email: 'Ada@Example.COM',
      password: 'Secret12',
      first_name: 'A',
      last_name: 'L',
    });
    expect(parsed.email).toBe('ada@example.com');
    expect(parsed.company).toBeUndefined();
  });
});

describe('invite completion form', () => {
  it('uses the completion page texts', () => {
    expect(validateCompletionForm({ password: '', confirmPassword: '' })).toBe('Incorrect user or password!');
    expect(validateCompletionForm({ password: 'Secret12', confirmPassword: 'Secret21' })).toBe(
      'Password and confirm password does not match!',
    );
    expect(validateCompletionForm({ password: 'Secret12', confirmPassword: 'Secret12' })).toBeNull();
  });
});

describe('new-password button rule (spec 000 §4)', () => {
  const base = {
    password: 'Secret12',
    confirmPassword: 'Secret12',
    passwordVisited: true,
    repasswordVisited: true,
  };
  it('enables Reset only when both fields were focused, the password is strong and both match', () => {
    expect(newPasswordState(base).canSubmit).toBe(true);
    expect(newPasswordState({ ...base, passwordVisited: false }).canSubmit).toBe(false);
    expect(newPasswordState({ ...base, repasswordVisited: false }).canSubmit).toBe(false);
    expect(newPasswordState({ ...base, password: 'weak', confirmPassword: 'weak' }).canSubmit).toBe(false);
    expect(newPasswordState({ ...base, confirmPassword: 'Secret13' }).canSubmit).toBe(false);
  });
  it('shows the tooltips only after a field was focused', () => {
    const weak = {
      password: 'weak',
      confirmPassword: 'other',
      passwordVisited: false,
      repasswordVisited: false,
    };
    expect(newPasswordState(weak)).toMatchObject({ passwordTooltip: null, confirmTooltip: null });
    expect(newPasswordState({ ...weak, passwordVisited: true, repasswordVisited: true })).toMatchObject({
      passwordTooltip: messages.passwordRules,
      confirmTooltip: 'Passwords do not match. Please make sure they are correct.',
    });
  });
});

describe('error text rule (spec 000 §8)', () => {
  it('takes message, else error, else errors.base[0], else the generic text', () => {
    expect(errorText({ message: 'm', error: 'e', errors: { base: ['b'] } })).toBe('m');
    expect(errorText({ error: 'e', errors: { base: ['b'] } })).toBe('e');
    expect(errorText({ errors: { base: ['b'] } })).toBe('b');
    expect(errorText({})).toBe('Something went wrong. Please try again later.');
    expect(errorText('plain text')).toBe('Something went wrong. Please try again later.');
  });
});
