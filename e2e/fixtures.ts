import { test as base } from '@playwright/test';

/**
 * Every e2e test's `test`: when a test fails, the page's address, its accessibility tree and the browser's
 * console errors are printed, so a failure on CI (where the trace and screenshot stay behind) can be read
 * from the log alone.
 */
export const test = base.extend<{ failureReport: void }>({
  failureReport: [
    async ({ page }, use, testInfo) => {
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      const snapshot = await page
        .locator('body')
        .ariaSnapshot({ timeout: 5000 })
        .catch((error: unknown) => `(no snapshot: ${String(error)})`);
      console.log(
        [
          `--- failure report: ${testInfo.title}`,
          `url: ${page.url()}`,
          'page (accessibility tree):',
          snapshot.slice(0, 6000),
          `console errors (${consoleErrors.length}):`,
          ...consoleErrors.slice(-20),
          '---',
        ].join('\n'),
      );
    },
    { auto: true },
  ],
});

export { expect } from '@playwright/test';
