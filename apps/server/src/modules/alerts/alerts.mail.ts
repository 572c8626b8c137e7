import { escapeHtml } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

/** The e-mail of one alert crossing. */
export function alertMail(
  to: string,
  firstName: string,
  title: string,
  description: string,
  link: string,
): OutgoingMail {
  return {
    to,
    subject: `Cumulo alert: ${title}`,
    link,
    text: `Hello ${firstName},\n\n${description}\n\nSee your alerts: ${link}\n\n— Cumulo`,
    html:
      `<p>Hello ${escapeHtml(firstName)},</p><p>${escapeHtml(description)}</p>` +
      `<p><a href="${escapeHtml(link)}">See your alerts</a></p><p>— Cumulo</p>`,
  };
}
