import { actionMail } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

/** The e-mail to an Owner when a member asks for a package, a quote, a service or more quota. */
export function ownerRequestMail(
  to: string,
  firstName: string,
  subject: string,
  description: string,
  link: string,
): OutgoingMail {
  return actionMail({ to, firstName, subject, description, link, action: 'Review your plan and packages' });
}
