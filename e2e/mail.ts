import fs from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';
import { e2eTmp } from './tmp-dir.ts';

export const mailDir = path.join(e2eTmp, 'mail');

interface SavedMail {
  to: string[];
  raw: string;
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * Waits for the newest mail to `to` whose subject contains `subject` (that arrived after `after` mails
 * to that address) and returns the first link in it matching `link`.
 */
export async function linkFromMail(to: string, subject: string, link: RegExp, after = 0): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      () => {
        const mails = fs
          .readdirSync(mailDir)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => JSON.parse(fs.readFileSync(path.join(mailDir, f), 'utf8')) as SavedMail)
          .filter((m) => m.to.includes(to))
          .slice(after)
          .map((m) => decodeQuotedPrintable(m.raw))
          .filter((raw) => /^Subject: (.*)$/m.exec(raw)?.[1]?.includes(subject));
        found = mails.at(-1) && link.exec(mails.at(-1) ?? '')?.[0];
        return Boolean(found);
      },
      { timeout: 15_000, message: `mail "${subject}" to ${to}` },
    )
    .toBe(true);
  return found ?? '';
}

/** How many mails `to` has received so far. */
export function mailCount(to: string): number {
  return fs
    .readdirSync(mailDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(mailDir, f), 'utf8')) as SavedMail)
    .filter((m) => m.to.includes(to)).length;
}

/** The subjects of the mails `to` received that start with `prefix`. */
export function mailsTo(to: string, prefix: string): string[] {
  return fs
    .readdirSync(mailDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(mailDir, f), 'utf8')) as SavedMail)
    .filter((m) => m.to.includes(to))
    .map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? '')
    .filter((subject) => subject.startsWith(prefix));
}
