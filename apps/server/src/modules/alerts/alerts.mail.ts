import type { OutgoingMail } from '../../mail/mail.service.ts';

const escape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

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
      `<p>Hello ${escape(firstName)},</p><p>${escape(description)}</p>` +
      `<p><a href="${escape(link)}">See your alerts</a></p><p>— Cumulo</p>`,
  };
}
