import { formatBytes } from '@cumulo/contract';
import { escapeHtml } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

export interface ShareNotice {
  sharedBy: string;
  files: Array<{ name: string; size: number }>;
  expiresAt: Date;
  passwordRequired: boolean;
  link: string;
}

const fileCount = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
// UTC with the zone spelled out: the recipient's own zone is unknown here.
const expiry = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const passwordLine = (required: boolean) =>
  required
    ? 'The link is protected by a password: ask the sender for it.'
    : 'No password is needed to open the link.';

/** The subject of a share mail; tests and people search for it. */
const shareSubject = (notice: Pick<ShareNotice, 'sharedBy' | 'files'>) =>
  `${notice.sharedBy} shared ${fileCount(notice.files.length)} with you`;

/** The e-mail of a share: who shared, which files, until when, whether a password is needed; never the password. */
export function shareMail(to: string, notice: ShareNotice): OutgoingMail {
  const list = notice.files.map((f) => `${baseName(f.name)} (${formatBytes(f.size)})`);
  return {
    to,
    subject: shareSubject(notice),
    link: notice.link,
    text:
      `Hello,\n\n${notice.sharedBy} shared ${fileCount(notice.files.length)} with you on Cumulo:\n\n` +
      list.map((line) => `- ${line}`).join('\n') +
      `\n\nOpen the files: ${notice.link}\n\nThe link works until ${expiry(notice.expiresAt)}. ` +
      `${passwordLine(notice.passwordRequired)}\n\n— Cumulo`,
    html:
      `<p>Hello,</p><p>${escapeHtml(notice.sharedBy)} shared ${fileCount(notice.files.length)} with you on Cumulo:</p>` +
      `<ul>${list.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>` +
      `<p><a href="${escapeHtml(notice.link)}">Open the files</a></p>` +
      `<p>The link works until ${expiry(notice.expiresAt)}. ${escapeHtml(passwordLine(notice.passwordRequired))}</p>` +
      `<p>— Cumulo</p>`,
  };
}

/** The chat message of a share: plain text with a bare link, which Slack, Mattermost and Teams all turn into a link. */
export function shareChatText(notice: ShareNotice): string {
  const list = notice.files.map((f) => `${baseName(f.name)} (${formatBytes(f.size)})`).join(', ');
  return (
    `${notice.sharedBy} shared ${fileCount(notice.files.length)}: ${list}\n${notice.link}\n` +
    `The link works until ${expiry(notice.expiresAt)}. ${passwordLine(notice.passwordRequired)}`
  );
}

/** The last segment of an object path: what a person calls the file. */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || path;
}
