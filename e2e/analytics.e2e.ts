import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { formatUsd } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { CurReportGenerator, objectStoreSink, type PeriodTotals } from '@cumulo/server/testing';
import { fillCardForm } from './billing.ts';
import { connectAwsWithBillingBucket } from './cloud-accounts.ts';
import { pick } from './selects.ts';
import { expect, test } from './fixtures.ts';
import { signedInOwner } from './session.ts';
import { s3rverStore } from './stores.ts';

/**
 * Issue 24 "Done when", in Chromium: a generated year of billing reports in an s3rver billing bucket shows the
 * generator's totals on /analytics and /analytics-old; a re-delivered month replaces, never doubles; a corrupted
 * delivery leaves the month as it was, and the run says which file broke.
 */
const ACCOUNT = 'Analytics AWS';
const now = new Date();
const monthOf = (date: Date) => date.toISOString().slice(0, 7);
const CURRENT = monthOf(now);
const PREVIOUS = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
/** Where the screenshots go for a person to look at (git-ignored with the rest of e2e/.tmp). */
const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.tmp', 'screens');
const usd = (nano: bigint | undefined) => formatUsd(Number(nano ?? 0n) / 1e9);

/** The latest ingestion run said in words on the page: waits (reloading) until one has finished. */
async function latestRun(page: Page, url: string, finished: RegExp) {
  await expect(async () => {
    await page.goto(url);
    await expect(page.getByText(finished)).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 90_000 });
}

/** The figure of one card of /analytics (a group named by its title). */
const card = (page: Page, title: string) => page.getByRole('group', { name: title, exact: true });

test('a generated year of billing reports shows its totals on /analytics and /analytics-old', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const bucket = `e2e-billing-${Date.now()}`;
  const store = s3rverStore();
  const generator = new CurReportGenerator({
    seed: 2024,
    layout: 'cur-legacy',
    endMonth: CURRENT,
    months: 12,
    linesPerMonth: 400,
    filesPerPeriod: 2,
    bucket,
    rollups: true,
  });
  await store.createBucket(bucket);
  const sink = objectStoreSink(store, bucket);
  const deliveries = await generator.writeAll(sink);
  let expected = generator.expected();
  const month = (period: string): PeriodTotals => {
    const totals = expected.periods[period];
    if (!totals) throw new Error(`the generator wrote no ${period}`);
    return totals;
  };
  // A bucket the report bills, in the inventory too: its estimate is shown beside its billed cost.
  const billedBucket = Object.keys(month(CURRENT).byResource).find((id) => id.startsWith('media-')) ?? '';
  await store.createBucket(billedBucket);
  await store.write(billedBucket, 'clip.bin', Buffer.alloc(1024 * 1024, 3));

  await signedInOwner(page, 'Ada');

  await test.step('the Owner buys Analytics with a first card', async () => {
    await page.goto('/analytics');
    const modal = page.getByRole('dialog', { name: 'Subscribe to Analytics' });
    await expect(modal).toBeVisible();
    await modal.getByRole('checkbox').check();
    await fillCardForm(modal, 'Confirm');
    await expect(modal).toBeHidden();
  });

  await test.step('connecting the aws account with its billing bucket starts the ingestion', async () => {
    await connectAwsWithBillingBucket(page, ACCOUNT, S3RVER_KEY, bucket);
    await latestRun(page, '/analytics', /Billing reports read .*: [\d,]+ rows, 12 periods replaced/);
  });

  await test.step('Overview: the cards, the categories and their products are the generator’s figures', async () => {
    const current = month(CURRENT);
    await expect(card(page, 'Total Cost')).toContainText(usd(current.costNano));
    const storage = ['AmazonS3', 'AmazonEFS'].reduce(
      (sum, code) => sum + (current.byProduct[code] ?? 0n),
      0n,
    );
    await expect(card(page, 'Storage Cost')).toContainText(usd(storage));
    await expect(card(page, 'Compute Cost')).toContainText(usd(current.byProduct.AmazonEC2));
    // The month is generated whole, so its forecast is its total.
    await expect(card(page, 'Forecast')).toContainText(usd(current.costNano));
    const types = page.getByRole('region', { name: 'By line-item type' });
    await expect(types).toContainText(usd(current.byLineItemType.Credit));
    await expect(types).toContainText(usd(current.byLineItemType.Tax));

    // A click on the Storage bar drills down into its products; Back returns to the categories.
    const categories = await page
      .getByRole('list', { name: 'Categories' })
      .getByRole('button')
      .allTextContents();
    const chart = page.getByRole('figure', { name: 'Cost by category' });
    await chart.locator('.recharts-bar-rectangle').nth(categories.indexOf('Storage')).click();
    const products = page.getByRole('list', { name: 'Storage products' });
    await expect(products).toContainText('S3');
    await expect(products).toContainText(usd(current.byProduct.AmazonS3));
    await expect(products).toContainText(usd(current.byProduct.AmazonEFS));
    await page.screenshot({ path: `${SCREENS}/analytics-storage-products.png`, fullPage: true });
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByRole('list', { name: 'Categories' })).toBeVisible();
    await page.screenshot({ path: `${SCREENS}/analytics-overview.png`, fullPage: true });
  });

  await test.step('another month through the filters', async () => {
    const [year, monthNumber] = PREVIOUS.split('-').map(Number);
    await page.goto(`/analytics?year=${year}&month=${monthNumber}`);
    await expect(card(page, 'Total Cost')).toContainText(usd(month(PREVIOUS).costNano));
  });

  await test.step('one linked account of the consolidated bill, and the months held, through the filters', async () => {
    // The previous month, in its own year (in January that is last year's December): the months list is the year's.
    const [year, monthNumber] = PREVIOUS.split('-').map(Number);
    await page.goto(`/analytics?year=${year}&month=${monthNumber}`);
    const members = Object.keys(month(PREVIOUS).byAccount).sort();
    const member = members[1] ?? '';
    expect(members).toHaveLength(2);
    await pick(page, 'Linked account', member);
    await expect(page).toHaveURL(new RegExp(`linked=${member}`));
    await expect(card(page, 'Total Cost')).toContainText(usd(month(PREVIOUS).byAccount[member]));
    // The months list gives each month held the linked account's cost.
    await page.getByRole('combobox', { name: 'Month' }).click();
    const monthName = new Date(Date.UTC(2000, (monthNumber ?? 1) - 1, 1)).toLocaleString('en-US', {
      month: 'long',
      timeZone: 'UTC',
    });
    await expect(
      page.locator('.ant-select-item-option:visible').filter({ hasText: monthName }),
    ).toContainText(usd(month(PREVIOUS).byAccount[member]));
    await page.screenshot({ path: `${SCREENS}/analytics-linked-account.png`, fullPage: true });
    await page.keyboard.press('Escape');
    await pick(page, 'Linked account', 'All linked accounts');
    await expect(card(page, 'Total Cost')).toContainText(usd(month(PREVIOUS).costNano));
  });

  await test.step('Storage: the billed bucket beside its estimate; Compute: the instances', async () => {
    await page.goto('/analytics?page=storage');
    await expect(card(page, 'S3')).toContainText(usd(month(CURRENT).byProduct.AmazonS3));
    const row = page.getByRole('row').filter({ hasText: billedBucket });
    await expect(row).toContainText(usd(month(CURRENT).byResource[billedBucket]));
    await page.goto('/analytics?page=compute');
    // EC2 lines of instances only: data transfer lines carry instance ids too.
    const ec2Total = (month(CURRENT).rollups ?? [])
      .filter((row) => row.productCode === 'AmazonEC2' && row.resourceId.startsWith('i-'))
      .reduce((sum, row) => sum + row.costNano, 0n);
    await expect(card(page, 'Total Cost')).toContainText(usd(ec2Total));
  });

  await test.step('Invoices: the billing bucket’s files, one downloaded', async () => {
    await page.goto('/analytics?page=invoices');
    const files = page.getByRole('table', { name: 'Billing bucket files' });
    // The newest month's manifest, the file that names the month's report files.
    const manifestKey = deliveries.at(-1)?.manifestKeys[0] ?? '';
    await expect(files).toContainText(manifestKey);
    // The link opens in a new window at the signed address of the object, which the browser turns into a
    // download: what that address serves is the manifest the bucket holds.
    const signed = page.context().waitForEvent('request', (request) => request.url().includes(`/${bucket}/`));
    await page.getByRole('button', { name: `Download ${manifestKey}` }).click();
    const served = await page.request.get((await signed).url());
    expect(served.ok()).toBe(true);
    expect(JSON.parse(await served.text())).toHaveProperty('reportKeys');
  });

  await test.step('a re-delivered month replaces its figures, never adds to them', async () => {
    const before = month(PREVIOUS).costNano;
    await generator.redeliver(sink, PREVIOUS);
    expected = generator.expected();
    expect(month(PREVIOUS).costNano).not.toBe(before);
    const [year, monthNumber] = PREVIOUS.split('-').map(Number);
    const url = `/analytics?year=${year}&month=${monthNumber}`;
    await page.goto(url);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await latestRun(
      page,
      url,
      /Billing reports read .*: [\d,]+ rows, 1 period replaced, 11 periods unchanged/,
    );
    await expect(card(page, 'Total Cost')).toContainText(usd(month(PREVIOUS).costNano));
  });

  await test.step('a corrupted delivery fails the run with its file and leaves the month as it was', async () => {
    const kept = month(PREVIOUS).costNano;
    const broken = await generator.redeliver(sink, PREVIOUS, { corrupt: 'bad-number' });
    const [year, monthNumber] = PREVIOUS.split('-').map(Number);
    const url = `/analytics?year=${year}&month=${monthNumber}`;
    await page.goto(url);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const file = broken.corrupt?.key ?? '';
    await latestRun(
      page,
      url,
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line ${broken.corrupt?.line}`),
    );
    await expect(card(page, 'Total Cost')).toContainText(usd(kept));
  });

  await test.step('/analytics-old: the donuts, the bucket drill-down, AWS Support and the invoices', async () => {
    const current = month(CURRENT);
    const s3Rows = (current.rollups ?? []).filter((row) => row.productCode === 'AmazonS3');
    const sum = (rows: typeof s3Rows) => rows.reduce((total, row) => total + row.costNano, 0n);
    await page.goto('/analytics-old');
    await expect(page.getByRole('region', { name: 'Cost by product' })).toContainText(usd(current.costNano));
    // AWS Support shows only because the month's report holds a support fee.
    await expect(page.getByRole('tab', { name: 'AWS Support' })).toBeVisible();

    await page.getByRole('tab', { name: 'S3', exact: true }).click();
    await expect(page.getByRole('region', { name: 'S3 by usage type' })).toContainText(usd(sum(s3Rows)));

    await page.getByRole('tab', { name: 'Bucket Cost' }).click();
    await expect(page.getByRole('region', { name: 'Cost by bucket' })).toContainText(usd(sum(s3Rows)));
    const bucketRows = s3Rows.filter((row) => row.resourceId === billedBucket);
    // A month bills many buckets: the select is searched, as a member with hundreds of buckets would.
    await pick(page, 'Bucket', billedBucket);
    await expect(page.getByRole('region', { name: `Usage types of ${billedBucket}` })).toContainText(
      usd(sum(bucketRows)),
    );
    const usageType = bucketRows[0]?.usageType ?? '';
    await pick(page, 'Usage type', usageType);
    await expect(
      page.getByRole('region', { name: `Operations of ${billedBucket} · ${usageType}` }),
    ).toContainText(usd(sum(bucketRows.filter((row) => row.usageType === usageType))));
    await page.screenshot({ path: `${SCREENS}/analytics-old-bucket-cost.png`, fullPage: true });
    await page.getByRole('button', { name: 'Clear Filter' }).click();
    await expect(page.getByRole('region', { name: 'Usage types of all buckets' })).toContainText(
      usd(sum(s3Rows)),
    );

    await page.getByRole('tab', { name: 'Download Invoice' }).click();
    await expect(
      page.getByRole('cell', { name: deliveries.at(-1)?.manifestKeys[0] ?? '', exact: true }),
    ).toBeVisible();
  });
});
