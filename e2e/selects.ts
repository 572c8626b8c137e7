import type { Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** Picks an option of an antd searchable select by typing part of it (its option list is virtual). */
export async function pick(page: Page, label: string, option: string) {
  const select = page.getByRole('combobox', { name: label });
  await select.click();
  await select.fill(option);
  await page
    .locator('.ant-select-item-option:visible')
    .filter({ hasText: option })
    .first()
    .click({ timeout: 5000 });
}

/**
 * Chooses account and bucket of each side ("Source", "Destination") on `url`. The bucket list comes from the
 * account's inventory, which the worker fills in the background after the account is connected: until it lists
 * the bucket, open the page again.
 */
export async function chooseBuckets(page: Page, url: string, sides: Array<[string, string, string]>) {
  await expect(async () => {
    await page.goto(url);
    for (const [side, account, bucket] of sides) {
      await pick(page, `${side} Account`, account);
      await pick(page, `${side} Bucket`, bucket);
    }
  }).toPass({ timeout: 60_000 });
}

/** What s3rver was asked for a bucket so far, by "METHOD object" / "METHOD bucket" (e2e/object-stores.ts). */
export async function s3rverRequests(bucket: string): Promise<Record<string, number>> {
  const url = process.env.E2E_S3RVER_REQUESTS;
  if (!url) throw new Error('global-setup.ts did not start the request counter');
  const answer = await fetch(`${url}/?bucket=${encodeURIComponent(bucket)}`);
  return (await answer.json()) as Record<string, number>;
}

/**
 * Opens a bucket in the cloud pane of /S3Direct; its account's first inventory lists the bucket, so reload until it
 * does.
 */
export async function openBucket(page: Page, accountName: string, bucket: string) {
  await expect(async () => {
    await page.goto('/S3Direct');
    await page.getByRole('combobox', { name: 'Cloud account' }).click();
    await page.locator('.ant-select-item-option').filter({ hasText: accountName }).first().click();
    await page.getByRole('combobox', { name: 'Bucket' }).click();
    // The list is virtual: with many buckets (other specs leave theirs) only the first few options exist.
    await page.getByRole('combobox', { name: 'Bucket' }).fill(bucket);
    await page
      .locator('.ant-select-item-option')
      .filter({ hasText: bucket })
      .first()
      .click({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await expect(page.getByRole('combobox', { name: 'Bucket' })).toBeVisible();
}
