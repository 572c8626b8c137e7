import { escapeHtml } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

function actionMail(
  to: string,
  subject: string,
  intro: string,
  action: string,
  link: string,
  outro: string,
): OutgoingMail {
  return {
    to,
    subject,
    link,
    text: `${intro}\n\n${action}: ${link}\n\n${outro}\n\n— Cumulo`,
    html:
      `<p>${escapeHtml(intro)}</p>` +
      `<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#1677ff;color:#fff;` +
      `border-radius:6px;text-decoration:none">${escapeHtml(action)}</a></p>` +
      `<p style="color:#666">${escapeHtml(outro)}<br>If the button does not work, open this link: ${escapeHtml(link)}</p><p>— Cumulo</p>`,
  };
}

export const verificationMail = (to: string, firstName: string, link: string) =>
  actionMail(
    to,
    'Verify your e-mail address for Cumulo',
    `Hello ${firstName}, we received your request for a Cumulo account. Please verify your e-mail address.`,
    'Verify your e-mail',
    link,
    'The link expires after 24 hours.',
  );

export const resetMail = (to: string, firstName: string, link: string) =>
  actionMail(
    to,
    'Reset your Cumulo password',
    `Hello ${firstName}, someone asked to reset the password of your Cumulo account.`,
    'Reset your password',
    link,
    'The link works once and expires after one hour. If you did not ask for it, ignore this e-mail: your password stays as it is.',
  );

export const alreadyRegisteredMail = (to: string, loginLink: string) =>
  actionMail(
    to,
    'You already have a Cumulo account',
    'Someone tried to sign up for Cumulo with this e-mail address, which already has an account.',
    'Sign in',
    loginLink,
    'If you forgot your password, use "Forgot password?" on the sign-in page. If it was not you, ignore this e-mail.',
  );

export const invitationMail = (to: string, firstName: string, link: string) =>
  actionMail(
    to,
    'You are invited to Cumulo',
    `Hello ${firstName}, you have been invited to join an organisation on Cumulo.`,
    'Accept the invitation',
    link,
    'The invitation expires after 7 days.',
  );

export const welcomeCustomerMail = (to: string, firstName: string, link: string) =>
  actionMail(
    to,
    'Welcome to Cumulo: set your password',
    `Hello ${firstName}, your Cumulo organisation is ready and subscribed with the card you entered.`,
    'Set your password',
    link,
    'The link works once and expires after one hour; after that, use "Forgot password?" on the sign-in page.',
  );
