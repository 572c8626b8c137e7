import { escapeHtml } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

/** The e-mail to an Owner or Admin when a sync cycle waits for their approval of its deletes. */
export function approvalMail(
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
    text: `Hello ${firstName},\n\n${description}\n\nApprove or reject the deletes: ${link}\n\n— Cumulo`,
    html:
      `<p>Hello ${escapeHtml(firstName)},</p><p>${escapeHtml(description)}</p>` +
      `<p><a href="${escapeHtml(link)}">Approve or reject the deletes</a></p><p>— Cumulo</p>`,
  };
}
