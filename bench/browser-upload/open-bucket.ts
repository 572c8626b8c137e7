import type { Page } from 'playwright';

/**
 * Picks an account and a bucket in the page's cloud pane (antd selects). The bucket list comes from the
 * account's first inventory, so the page is reloaded until the bucket is offered.
 */
export async function openBucketInBrowser(page: Page, accountName: string, bucket: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    await page.getByRole('combobox', { name: 'Cloud account' }).click();
    await page.locator('.ant-select-item-option').filter({ hasText: accountName }).first().click();
    await page.getByRole('combobox', { name: 'Bucket' }).click();
    const option = page.locator('.ant-select-item-option').filter({ hasText: bucket }).first();
    if (await option.isVisible().catch(() => false)) {
      await option.click();
      return;
    }
    if (Date.now() > deadline) throw new Error(`bucket ${bucket} never appeared in ${accountName}`);
    await page.waitForTimeout(1000);
    await page.reload();
  }
}
