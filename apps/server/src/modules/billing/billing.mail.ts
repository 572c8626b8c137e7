import { escapeHtml } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

/** The e-mail to an Owner when a member asks for a package, a quote, a service or more quota. */
export function ownerRequestMail(
  to: string,
  firstName: string,
  subject: string,
  description: string,
  link: string,
): OutgoingMail {
  return {
    to,
    subject,
    link,
    text: `Hello ${firstName},\n\n${description}\n\nReview your plan and packages: ${link}\n\n— Cumulo`,
    html:
      `<p>Hello ${escapeHtml(firstName)},</p><p>${escapeHtml(description)}</p>` +
      `<p><a href="${escapeHtml(link)}">Review your plan and packages</a></p><p>— Cumulo</p>`,
  };
}
