import type { Page } from '@playwright/test';
import { expect } from './fixtures.ts';

declare global {
  interface Window {
    __cumuloToasts?: string[];
  }
}

/**
 * Keeps, in the page, the text of every toast (antd message) shown from the next navigation on. A toast lives
 * 3 s; a test worker busy with other work (seeding 2 000 objects while it signs up, on a 2-core CI machine) can
 * poll too late to see one that came and went. The record is written by the browser when the toast appears, so
 * `expectToast` finds it however late it asks.
 */
export async function recordToasts(page: Page) {
  await page.addInitScript(() => {
    if (window.__cumuloToasts) return;
    const seen = new Set<string>();
    window.__cumuloToasts = [];
    // Every change re-reads the toasts on the page, so a notice whose text renders after it is added counts too.
    new MutationObserver(() => {
      for (const notice of document.querySelectorAll('.ant-message-notice')) {
        const text = notice.textContent ?? '';
        if (text && !seen.has(text)) {
          seen.add(text);
          window.__cumuloToasts?.push(text);
        }
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
}

/** The page showed a toast with `text` since `recordToasts` (shown now or already gone). */
export async function expectToast(page: Page, text: string) {
  await expect
    .poll(() => page.evaluate(() => window.__cumuloToasts ?? []))
    .toEqual(expect.arrayContaining([expect.stringContaining(text)]));
}
