import type { AuditEntity, AuditType } from '@cumulo/contract';
import { escapeHtml } from '../../mail/html.ts';
import type { OutgoingMail } from '../../mail/mail.service.ts';

/** The e-mail of one budget alert crossing. */
export function budgetAlertMail(to: string, title: string, description: string, link: string): OutgoingMail {
  return {
    to,
    subject: `Cumulo alert: ${title}`,
    link,
    text: `Hello,\n\n${description}\n\nSee your budgets: ${link}\n\n— Cumulo`,
    html:
      `<p>Hello,</p><p>${escapeHtml(description)}</p>` +
      `<p><a href="${escapeHtml(link)}">See your budgets</a></p><p>— Cumulo</p>`,
  };
}

interface DigestEntry {
  createdAt: Date;
  authorName: string;
  entity: AuditEntity;
  resource: string;
  type: AuditType;
}

interface DigestContent {
  /** How people read the period: '2026-11-03', '2026-11-02 to 2026-11-08', '2026-10'. */
  period: string;
  counts: ReadonlyArray<{ entity: AuditEntity; type: AuditType; count: number }>;
  /** Newest first, at most FINANCE_DIGEST_MAX_ENTRIES. */
  entries: readonly DigestEntry[];
  total: number;
  link: string;
}

const when = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The audit digest of one period (spec 002 §3 "Finance settings": logs_emails, logs_frequency). */
export function digestMail(to: string, content: DigestContent): OutgoingMail {
  const subject = `Cumulo activity digest: ${content.period}`;
  if (content.total === 0) {
    const line = `No activity in ${content.period}: nobody changed anything in your organisation.`;
    return {
      to,
      subject,
      link: content.link,
      text: `Hello,\n\n${line}\n\nThe activity log: ${content.link}\n\n— Cumulo`,
      html:
        `<p>Hello,</p><p>${escapeHtml(line)}</p>` +
        `<p><a href="${escapeHtml(content.link)}">The activity log</a></p><p>— Cumulo</p>`,
    };
  }
  const byEntity = new Map<AuditEntity, Array<{ type: AuditType; count: number }>>();
  for (const { entity, type, count } of content.counts) {
    byEntity.set(entity, [...(byEntity.get(entity) ?? []), { type, count }]);
  }
  const summary = [...byEntity].map(([entity, types]) => {
    const sum = types.reduce((total, t) => total + t.count, 0);
    return `${entity}: ${sum} (${types.map((t) => `${t.type} ${t.count}`).join(', ')})`;
  });
  const rows = content.entries.map((e) => [when(e.createdAt), e.authorName, e.entity, e.resource, e.type]);
  const more = content.total - content.entries.length;
  const moreLine = more > 0 ? `and ${more} more: ${content.link}` : null;
  const intro = `${content.total} change${content.total === 1 ? '' : 's'} in ${content.period}.`;
  const text = [
    'Hello,',
    '',
    intro,
    '',
    ...summary,
    '',
    'Newest first (when, who, entity, resource, type):',
    ...rows.map((cells) => cells.join(' | ')),
    ...(moreLine ? [moreLine] : []),
    '',
    `The activity log: ${content.link}`,
    '',
    '— Cumulo',
  ].join('\n');
  const cell = (value: string) => `<td>${escapeHtml(value)}</td>`;
  const html =
    `<p>Hello,</p><p>${escapeHtml(intro)}</p>` +
    `<ul>${summary.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>` +
    '<table><thead><tr><th>When</th><th>Who</th><th>Entity</th><th>Resource</th><th>Type</th></tr></thead><tbody>' +
    rows.map((cells) => `<tr>${cells.map(cell).join('')}</tr>`).join('') +
    '</tbody></table>' +
    (more > 0 ? `<p><a href="${escapeHtml(content.link)}">and ${more} more</a></p>` : '') +
    `<p><a href="${escapeHtml(content.link)}">The activity log</a></p><p>— Cumulo</p>`;
  return { to, subject, link: content.link, text, html };
}
