import type { Page } from '@playwright/test';
import { expect } from './fixtures.ts';
import { expectToast, recordToasts } from './toasts.ts';

/** Fills the add-provider form of `provider` with `fields` (label → value) and presses Save. */
export async function submitAccount(page: Page, provider: string, fields: Record<string, string>) {
  await page.goto(`/addProvider/${provider}`);
  for (const [label, value] of Object.entries(fields))
    await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
}

/**
 * Connects an account through the screens and waits for the dashboard: the success toast, and for aws the
 * billing-bucket step skipped (the AWS flow ends with it).
 */
export async function connectAccount(page: Page, provider: string, fields: Record<string, string>) {
  await recordToasts(page);
  await submitAccount(page, provider, fields);
  await expectToast(page, `${fields.Name} added successfully`);
  if (provider === 'aws') await page.getByRole('button', { name: 'Skip this Step' }).click();
  await expect(page).toHaveURL(/\/$/);
}

/**
 * Connects an aws account through the screens with its billing bucket chosen in the third step, which starts the
 * first reading of its billing reports, and leaves the connecting dialog.
 */
export async function connectAwsWithBillingBucket(page: Page, name: string, key: string, bucket: string) {
  await submitAccount(page, 'aws', { Name: name, 'Access Key': key, 'Secret Key': key });
  await page.getByLabel('Billing bucket').click();
  await page.getByTitle(bucket).click();
  await page.getByRole('button', { name: 'Save and Connect' }).click();
  await page
    .getByRole('dialog', { name: 'Connecting to Billing Bucket' })
    .getByRole('button', { name: 'Go To Cloud Page' })
    .click();
}
