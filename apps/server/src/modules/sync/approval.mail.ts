import { actionMail } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

/** The e-mail to an Owner or Admin when a sync cycle waits for their approval of its deletes. */
export function approvalMail(
  to: string,
  firstName: string,
  subject: string,
  description: string,
  link: string,
): OutgoingMail {
  return actionMail({ to, firstName, subject, description, link, action: 'Approve or reject the deletes' });
}
