import type { OutgoingMail } from '../../mail/mail.service.ts';

const escape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

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
      `<p>Hello ${escape(firstName)},</p><p>${escape(description)}</p>` +
      `<p><a href="${escape(link)}">Approve or reject the deletes</a></p><p>— Cumulo</p>`,
  };
}
