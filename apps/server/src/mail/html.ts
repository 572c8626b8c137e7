/** Escapes text for the HTML part of an e-mail: names, file names and messages come from users. */
export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** A short e-mail asking one person to act: a greeting, what happened, and one link to where they act. */
export function actionMail(mail: {
  to: string;
  firstName: string;
  subject: string;
  description: string;
  link: string;
  /** The link's words, e.g. 'Approve or reject the deletes'. */
  action: string;
}) {
  const { to, firstName, subject, description, link, action } = mail;
  return {
    to,
    subject,
    link,
    text: `Hello ${firstName},\n\n${description}\n\n${action}: ${link}\n\n— Cumulo`,
    html:
      `<p>Hello ${escapeHtml(firstName)},</p><p>${escapeHtml(description)}</p>` +
      `<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p><p>— Cumulo</p>`,
  };
}
