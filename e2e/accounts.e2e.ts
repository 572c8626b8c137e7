import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { bucketNameMessages } from '@cumulo/contract';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';
import { mailsTo } from './mail.ts';
import { connectAccount, submitAccount } from './cloud-accounts.ts';
import { signedInOwner } from './session.ts';
import { endpoints, s3rverStore, azuriteStore } from './stores.ts';

const MiB = 1024 * 1024;

async function token(page: Page) {
  return page.evaluate(() => localStorage.getItem('Authorization') ?? '');
}

async function api(page: Page, path: string) {
  const res = await page.request.get(path, { headers: { authorization: `Bearer ${await token(page)}` } });
  expect(res.ok()).toBe(true);
  return { raw: await res.text(), body: (await res.json()) as unknown };
}

/** The row of an account in the Active Cloud Providers list. */
const accountRow = (page: Page, name: string) =>
  page.locator('tr').filter({ has: page.getByRole('button', { name, exact: true }) });

test('connect S3 and Azure accounts, see real sizes, filter, compare, remove', async ({ page }) => {
  test.setTimeout(240_000);
  const { s3rver } = endpoints();
  const store = s3rverStore();
  const stamp = Date.now().toString(36);
  const media = `media-${stamp}`;
  const logs = `logs-${stamp}`;
  await store.createBucket(media);
  await store.createBucket(logs);
  await store.write(media, 'a.bin', Buffer.alloc(2 * MiB, 1));
  await store.write(media, 'b.bin', Buffer.alloc(1 * MiB, 2));
  await store.write(logs, 'today.log', Buffer.alloc(1024, 3));
  const blobs = azuriteStore();
  const container = `photos-${stamp}`;
  await blobs.createBucket(container);
  await blobs.write(container, 'cat.jpg', Buffer.alloc(4096, 4));
  await blobs.close();

  await signedInOwner(page);
  // A new organisation has no accounts: the dashboard sends an Owner to add one.
  await expect(page).toHaveURL(/\/addProvider/);

  // Wrong credentials are refused with the provider's message and nothing is saved.
  await submitAccount(page, 'genericS3', {
    Name: 'Lab S3',
    'Service URL': s3rver,
    'Access Key': 'WRONGKEY',
    'Secret Key': 'wrong-secret',
  });
  const refusal = page.getByRole('dialog', { name: 'Something Went Wrong' });
  await expect(refusal).toBeVisible();
  await expect(refusal).toContainText(/Access Key Id you provided does not exist/);
  await refusal.getByRole('button', { name: 'Close' }).last().click();
  await expect(refusal).toBeHidden();
  expect((await api(page, '/api/cloud_accounts/')).body).toEqual([]);

  // The right keys connect; the inventory counts the buckets for real.
  await connectAccount(page, 'genericS3', {
    Name: 'Lab S3',
    'Service URL': s3rver,
    'Access Key': S3RVER_KEY,
    'Secret Key': S3RVER_KEY,
  });

  await connectAccount(page, 'azure', {
    Name: 'Lab Azure',
    'Storage account name': AZURITE_ACCOUNT,
    'Account key': AZURITE_KEY,
  });

  // Buckets with real sizes: 3 MiB in two objects.
  await page.getByRole('button', { name: 'Lab S3', exact: true }).click();
  const s3Buckets = page.getByRole('table', { name: 'Buckets of Lab S3' });
  const mediaRow = s3Buckets.locator('tr').filter({ hasText: media });
  await expect(mediaRow).toContainText('3 MB', { timeout: 30_000 });
  await expect(mediaRow).toContainText('2');
  await expect(s3Buckets.locator('tr').filter({ hasText: logs })).toContainText('1 kB');

  // One account expanded at a time.
  await page.getByRole('button', { name: 'Lab Azure', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Lab S3', exact: true })).toHaveAttribute(
    'aria-expanded',
    'false',
  );
  const azureBuckets = page.getByRole('table', { name: 'Buckets of Lab Azure' });
  await expect(azureBuckets.locator('tr').filter({ hasText: container })).toContainText('4 kB', {
    timeout: 30_000,
  });

  // Filter by bucket name: the Azure account has no match and disappears.
  await page.getByPlaceholder('Search buckets').fill(media.toUpperCase());
  await expect(page.getByRole('button', { name: 'Lab Azure', exact: true })).toBeHidden();
  await page.getByRole('button', { name: 'Lab S3', exact: true }).click();
  await expect(s3Buckets.locator('tr').filter({ hasText: media })).toBeVisible();
  await expect(s3Buckets.locator('tr').filter({ hasText: logs })).toBeHidden();
  await page.getByPlaceholder('Search buckets').fill('');
  await expect(page.getByRole('button', { name: 'Lab Azure', exact: true })).toBeVisible();

  // Compare prices for the account's size.
  await page.goto('/');
  await page.waitForLoadState('networkidle');
  await accountRow(page, 'Lab S3').getByRole('button', { name: 'Compare prices' }).click();
  await expect(page).toHaveURL(/\/cloud-compare\//);
  await expect(page.getByText('Lab S3').first()).toBeVisible();
  for (const provider of ['Wasabi', 'Azure', 'Google'])
    await expect(page.getByRole('cell', { name: provider }).first()).toBeVisible();
  await expect(page.locator('.recharts-surface').first()).toBeVisible();

  // Remove an account, after the spec's confirmation.
  await page.goto('/');
  await accountRow(page, 'Lab Azure').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Do you want to remove the Lab Azure cloud account?')).toBeVisible();
  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(page.getByText('Lab Azure removed successfully')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Lab Azure', exact: true })).toBeHidden();

  // No answer carries a secret.
  const { raw } = await api(page, '/api/cloud_accounts/');
  expect(raw).not.toContain(S3RVER_KEY);
  expect(raw).not.toContain(AZURITE_KEY);
  await store.close();
});

/** Every mail to `to` whose subject starts with `prefix`. */
test('create a bucket in an AWS account, set a size alert on it, and be told once when the data passes it', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const store = s3rverStore();
  const stamp = Date.now().toString(36);
  const existing = `taken-${stamp}`;
  const bucket = `alerts-${stamp}`;
  await store.createBucket(existing);

  const { email } = await signedInOwner(page, 'Ada');
  // aws is served by s3rver (PROVIDER_ENDPOINTS); the AWS flow ends with the billing-bucket step.
  await connectAccount(page, 'aws', { Name: 'Lab AWS', 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });

  // Create New Bucket: the spec's name rules, the provider's answer for a taken name, then the real bucket.
  await accountRow(page, 'Lab AWS').getByRole('button', { name: 'Create bucket' }).click();
  await expect(page.getByRole('heading', { name: 'Create New Bucket' })).toBeVisible();
  const nameInput = page.getByLabel('Bucket name', { exact: true });
  const problems = page.locator('[aria-label="Bucket name problems"]');
  // Each name breaks one rule and shows that rule's own message.
  const m = bucketNameMessages;
  const broken: Array<[string, string]> = [
    ['media-Files', m.uppercase],
    ['-media', m.start],
    ['media..files', m.adjacentPeriods],
    ['media-.files', m.dashNextToPeriod],
    ['media-', m.end],
    ['media_files', m.invalidCharacters],
    ['ab', m.length],
    ['192.168.5.4', m.ipAddress],
  ];
  for (const [name, message] of broken) {
    await nameInput.fill(name);
    await expect(problems).toHaveText(message);
  }
  await nameInput.fill('');
  await expect(problems).toHaveText(m.required);
  await nameInput.fill(existing);
  await expect(problems).toContainText('Bucket with same name exist');
  await nameInput.fill(bucket);
  await expect(problems).toBeHidden();
  await expect(nameInput).toHaveValue(bucket);
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await page.getByRole('button', { name: 'Create Bucket', exact: true }).click();
  await expect(page.getByText(`Bucket ${bucket} created.`)).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  expect((await store.listBuckets()).map((b) => b.name)).toContain(bucket);

  // 1 MiB in the new bucket, counted by the worker.
  await store.write(bucket, 'first.bin', Buffer.alloc(1 * MiB, 1));
  await page.getByRole('button', { name: 'Lab AWS', exact: true }).click();
  await accountRow(page, 'Lab AWS').getByRole('button', { name: 'Refresh sizes' }).click();
  await expect(page.getByText('Refreshing the buckets of Lab AWS.')).toBeVisible();
  const buckets = page.getByRole('table', { name: 'Buckets of Lab AWS' });
  const row = buckets.locator('tr').filter({ hasText: bucket });
  await expect(row).toContainText('1 MB', { timeout: 30_000 });

  // A 1.5 MB size alert on the bucket: not over yet, so no notification.
  await row.getByRole('button', { name: 'Set alert' }).click();
  await page.getByRole('button', { name: 'set new alert' }).click();
  const modal = page.getByRole('dialog', { name: 'Set new alert' });
  await modal.getByLabel('Size limit').fill('1.5');
  await modal.getByText('MB', { exact: true }).click();
  await expect(modal.getByRole('radio', { name: 'MB' })).toBeChecked();
  await modal.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Alert saved successfully')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Notifications', exact: true })).toBeVisible();

  // 2 MiB after another write and a refresh: one notification in the bell, one e-mail.
  await store.write(bucket, 'second.bin', Buffer.alloc(1 * MiB, 2));
  await page.goto('/');
  await page.getByRole('button', { name: 'Lab AWS', exact: true }).click();
  await accountRow(page, 'Lab AWS').getByRole('button', { name: 'Refresh sizes' }).click();
  await expect(row).toContainText('2 MB', { timeout: 30_000 });
  const bell = page.getByRole('button', { name: 'Notifications (1 unread)' });
  await expect(bell).toBeVisible({ timeout: 30_000 });
  // The dashboard's Alerts widget lists it too; the bell's own list is read here.
  await expect(
    page.getByRole('list', { name: 'Newest alerts' }).getByText(`Size alert: ${bucket} (Lab AWS)`),
  ).toBeVisible();
  await bell.click();
  await expect(
    page.getByRole('list', { name: 'Latest notifications' }).getByText(`Size alert: ${bucket} (Lab AWS)`),
  ).toBeVisible();
  await expect.poll(() => mailsTo(email, 'Cumulo alert').length, { timeout: 15_000 }).toBe(1);

  // Still over after the next inventory (3 MiB): no second notification or mail. The check runs just after the
  // inventory, so the count is watched for a few seconds rather than read once.
  await page.keyboard.press('Escape');
  await store.write(bucket, 'third.bin', Buffer.alloc(1 * MiB, 3));
  await accountRow(page, 'Lab AWS').getByRole('button', { name: 'Refresh sizes' }).click();
  await expect(row).toContainText('3 MB', { timeout: 30_000 });
  for (let second = 0; second < 5; second++) {
    await page.waitForTimeout(1000);
    expect(mailsTo(email, 'Cumulo alert')).toHaveLength(1);
    await expect(bell).toBeVisible();
  }
  await store.close();
});
