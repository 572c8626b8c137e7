/** Texts of the spec that both the server and the web app show, used as written. */
export const messages = {
  generic: 'Something went wrong. Please try again later.',
  emailRequired: 'Please enter an email.',
  emailInvalid: 'Please enter a valid email.',
  signupMissing: 'Incorrect user or password or confirm password',
  signupMismatch: 'please input correct password and confirm password',
  completionMissing: 'Incorrect user or password!',
  completionMismatch: 'Password and confirm password does not match!',
  passwordRules:
    'Password requirements were not met. Password requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number.',
  passwordMismatch: 'Passwords do not match. Please make sure they are correct.',
  changePasswordMismatch: "Confirmation don't match password, please try again.",
  signupDone: 'Signup done successfully!',
  resetEmailSent: 'Email sent successfully, please check your email.',
  passwordReset: 'Password has been reset.',
  passwordChanged: 'Password changed successfully.',
  emailVerificationFailed: 'Email verification failed',
  emailNotVerified: 'Your email has not yet been verified.',
  mfaEnabled: 'MFA enabled successfully!',
  mfaDisabled: 'MFA disabled successfully!',
  signInAgainTitle: 'Please sign in again',
  signInAgainBody: 'You were signed out of your account.',
  noNotifications: 'No notification found',
  firstNameRequired: 'First name is required.',
  lastNameRequired: 'Last name is required.',
  termsRequired: 'Please accept the terms and conditions.',
  /* Texts the spec leaves to us ("not shown"). */
  wrongCredentials: 'Incorrect username or password.',
  /* Single sign-on (Google and the /oktalogin OpenID Connect provider); the spec gives none of these texts. */
  ssoNotConfigured: 'This sign-in option is not set up on this server.',
  /** A callback whose state is unknown, expired, already used or not this browser's (forged or replayed). */
  ssoFailed: 'Single sign-on did not complete. Please try again.',
  ssoEmailNotVerified:
    'Your sign-in provider has not confirmed your email address. Sign in with your email and password instead.',
  /** A password account of that address exists but its owner never confirmed it: linking it could hand it over. */
  accountDeactivated: 'Your account has been deactivated. Please contact your organisation Owner.',
  ssoAccountNotConfirmed:
    'An account with this email exists but is not confirmed yet. Confirm it from the email we sent, then try again.',
  wrongMfaCode: 'The code is not valid. Please enter the current code from your authenticator app.',
  /** A right TOTP code whose time step was already accepted once (the replay check). */
  mfaCodeAlreadyUsed:
    'This code was already used. Wait for the next code from your authenticator app, then enter it.',
  wrongRecoveryCode: 'This recovery code is not valid or was already used.',
  recoveryCodesRenewed: 'New recovery codes generated. The old ones no longer work.',
  /** Generating new recovery codes needs the current password or a current authenticator code. */
  recoveryCodesNeedProof: 'Enter your current password or a code from your authenticator app.',
  mfaSessionExpired: 'Your sign-in session has expired. Please sign in again.',
  tooManyAttempts: 'Too many sign-in attempts. Please wait a few minutes and try again.',
  /** The sign-in back-off's answer: how long, and the way in that never waits (the e-mailed reset). */
  signInWait: (seconds: number) => {
    const wait = Math.max(1, Math.ceil(seconds));
    const told = wait < 120 ? `${wait} second${wait === 1 ? '' : 's'}` : `${Math.ceil(wait / 60)} minutes`;
    return `Too many sign-in attempts. Try again in ${told}, or reset your password with "Forgot password?".`;
  },
  tooManyMails: 'Too many e-mails were requested from here. Please wait a while and try again.',
  tooManySsoStarts: 'Too many sign-ins were started from here. Please wait a few minutes and try again.',
  requestTokenInvalid: 'This form has expired. Please reload the page and try again.',
  resetLinkInvalid: 'This reset link is invalid or has expired. Please request a new one.',
  verifyLinkInvalid: 'This verification link is invalid or has expired. Please request a new one.',
  inviteInvalid: 'This invitation is invalid or has expired. Please ask for a new one.',
  accountVerified: 'Your email has been verified. You can now sign in.',
  wrongOldPassword: 'The current password is not correct.',
  notFound: 'Not found.',
  textInvalid: 'This text contains characters that cannot be saved. Please remove them and try again.',
  textTooLong: (max: number) => `This text is too long: at most ${max} characters.`,
  numberOutOfRange: 'Please enter a number within the allowed range.',
  forbidden: 'You do not have permission to do this.',
  profileSaved: 'Profile updated successfully.',
} as const;
