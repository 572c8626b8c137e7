import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import type { Page } from '@playwright/test';
import { FINANCE_SETTINGS_DEFAULTS, formatFinanceAmount } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { CurReportGenerator, objectStoreSink, type ReportSink } from '@cumulo/server/testing';
import { fillCardForm } from './billing.ts';
import { connectAwsWithBillingBucket } from './cloud-accounts.ts';
import { expect, test } from './fixtures.ts';
import { mailsTo } from './mail.ts';
import { pick } from './selects.ts';
import { signedInOwner } from './session.ts';
import { s3rverStore } from './stores.ts';

/**
 * Issue 25 "Done when", in Chromium, on the analytics issue's generated reports: yearly budgets for a cloud and two
 * products, the mismatch warning until they add up, actual against budget month by month, an 80 % actual alert;
 * a delivered month that crosses it gives one bell notice and one e-mail (SMTP sink), and re-delivering that
 * month gives no second one.
 */
const ACCOUNT = 'Finance AWS';
const now = new Date();
const CURRENT = now.toISOString().slice(0, 7);
const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.tmp', 'screens');
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** How the table names a month ('November 2026'). */
const monthTitle = (month: string) => `${MONTH_NAMES[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;
/** Money as /finance shows it with the default settings ($, 2 decimals); nano-dollars rounded to cents. */
const money = (dollars: number) => formatFinanceAmount(dollars, FINANCE_SETTINGS_DEFAULTS);
const centsOfNano = (nano: bigint) => Number((nano + 5_000_000n) / 10_000_000n);

/** A sink that reads and drops what it is given: the generator's totals without writing anything. */
const nullSink: ReportSink = {
  async put(_key: string, body: Readable) {
    let bytes = 0;
    for await (const chunk of body) bytes += (chunk as Buffer).length;
    return bytes;
  },
};

/** The table row of one month. */
const monthRow = (page: Page, month: string) =>
  page
    .getByRole('region', { name: 'Budget versus actual' })
    .getByRole('row')
    .filter({ hasText: new RegExp(`^${monthTitle(month)}`) });

/** Chooses a product in the filter bar (an antd select, searched by its label). */
async function chooseProduct(page: Page, label: string) {
  await page.getByRole('combobox', { name: 'Product' }).click();
  await page.getByRole('combobox', { name: 'Product' }).fill(label);
  await page.locator('.ant-select-item-option:visible').getByText(label, { exact: true }).click();
  await expect(page.getByRole('region', { name: 'Budget chart' })).toContainText(` · ${label} · `);
}

/** Types a yearly budget for the chosen cloud and product and waits for the toast. */
async function setYearly(page: Page, amount: number) {
  await page.getByLabel('Yearly budget').fill(String(amount));
  await page.getByRole('button', { name: 'Set yearly budget' }).click();
  await expect(page.getByText('Budget updated successfully').last()).toBeVisible();
}

/**
 * Reads the billing reports again (the Refresh of the ingestion status on /finance) and waits, reloading, until the
 * month's row shows what the new delivery billed.
 */
async function readReportsAgain(page: Page, month: string, billed: string) {
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(async () => {
    await page.reload();
    await expect(monthRow(page, month)).toContainText(billed, { timeout: 3000 });
  }).toPass({ timeout: 90_000 });
}

test('budgets for a cloud and two products, the mismatch warning, and an 80 % alert that fires once', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const bucket = `e2e-finance-${Date.now()}`;
  const store = s3rverStore();
  const options = {
    seed: 2025,
    layout: 'cur-legacy' as const,
    endMonth: CURRENT,
    months: now.getUTCMonth() + 1,
    linesPerMonth: 300,
    bucket,
  };
  const generator = new CurReportGenerator(options);
  await store.createBucket(bucket);
  const sink = objectStoreSink(store, bucket);
  // This year up to last month is billed now; the current month is delivered later, when the alert is set.
  const earlier = generator.periods.filter((period) => period !== CURRENT);
  for (const period of earlier) await generator.redeliver(sink, period);
  // The current month's first delivery, known in advance (the content is a function of the seed and period).
  const twin = new CurReportGenerator(options);
  await twin.redeliver(nullSink, CURRENT);
  const currentNano = twin.expected().periods[CURRENT]?.costNano ?? 0n;
  // A whole-dollar monthly budget the current month spends about 90 % of: over the 80 % alert.
  const monthly = Math.ceil(centsOfNano(currentNano) / 90);
  const s3Monthly = Math.floor(monthly / 3);
  const ec2Monthly = monthly - s3Monthly;
  const alertEmail = `finance.${Date.now()}@example.com`;

  await signedInOwner(page, 'Ada');

  await test.step('the Owner buys Finance with a first card', async () => {
    await page.goto('/finance');
    const modal = page.getByRole('dialog', { name: 'Subscribe to Finance' });
    await expect(modal).toBeVisible();
    await modal.getByRole('checkbox').check();
    await fillCardForm(modal, 'Confirm');
    await expect(modal).toBeHidden();
  });

  await test.step('an aws account with its billing bucket: the year so far is read', async () => {
    await connectAwsWithBillingBucket(page, ACCOUNT, S3RVER_KEY, bucket);
    await page.goto('/finance');
    await expect(page.getByRole('heading', { name: 'Finance' })).toBeVisible();
    if (earlier.length > 0) {
      await expect(async () => {
        await page.reload();
        await expect(page.getByText(/Billing reports read/).first()).toBeVisible({ timeout: 3000 });
      }).toPass({ timeout: 90_000 });
    }
  });

  await test.step('yearly budgets for the cloud and two products: warned until they add up', async () => {
    await setYearly(page, monthly * 12);
    await expect(monthRow(page, CURRENT)).toContainText(money(monthly));
    await chooseProduct(page, 'S3');
    await setYearly(page, s3Monthly * 12);
    await chooseProduct(page, 'EC2');
    await setYearly(page, (ec2Monthly - 1) * 12);
    await chooseProduct(page, 'Total');
    const warning = page.getByRole('region', { name: 'Budget versus actual' });
    await expect(warning.getByText('sub budgets does not match total budget').first()).toBeVisible();
    await page.screenshot({ path: `${SCREENS}/finance-mismatch.png`, fullPage: true });

    await chooseProduct(page, 'EC2');
    // The inline edit of one month: Escape leaves it, an empty value is refused, Enter saves.
    const cell = page.getByRole('button', { name: `Edit the budget of ${monthTitle(CURRENT)}` });
    await cell.click();
    const input = page.getByLabel(`Budget of ${monthTitle(CURRENT)}`);
    await input.fill('1');
    await input.press('Escape');
    await expect(cell).toContainText(money(ec2Monthly - 1));
    await setYearly(page, ec2Monthly * 12);
    await chooseProduct(page, 'Total');
    await expect(monthRow(page, CURRENT)).toContainText(money(monthly));
    await expect(page.getByText('sub budgets does not match total budget')).toHaveCount(0);
  });

  await test.step('actual against budget, month by month', async () => {
    const expected = generator.expected();
    for (const period of earlier) {
      const actual = centsOfNano(expected.periods[period]?.costNano ?? 0n) / 100;
      const row = monthRow(page, period);
      await expect(row).toContainText(money(monthly));
      await expect(row).toContainText(money(actual));
    }
    await page.screenshot({ path: `${SCREENS}/finance-budget-versus-actual.png`, fullPage: true });
  });

  await test.step('S3 drawn beside the total, a product chosen in the tree, and the table as CSV', async () => {
    await pick(page, 'Compare with', 'S3');
    const chart = page.getByRole('figure', { name: 'Budget versus actual chart' });
    await expect(chart).toContainText('S3 actual');
    await expect(chart).toContainText('S3 budget');
    await page.screenshot({ path: `${SCREENS}/finance-compare.png`, fullPage: true });

    const tree = page.getByRole('tree', { name: 'Budgets by cloud' });
    await tree.getByText('EC2', { exact: true }).click();
    await expect(page.getByRole('region', { name: 'Budget chart' })).toContainText(`${ACCOUNT} · EC2 · `);
    await expect(monthRow(page, CURRENT)).toContainText(money(ec2Monthly));
    await tree.getByText(ACCOUNT, { exact: true }).click();
    await expect(page.getByRole('region', { name: 'Budget chart' })).toContainText(`${ACCOUNT} · Total · `);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = fs.readFileSync((await (await download).path()) ?? '', 'utf8');
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('month,budget,actual,forecast,difference,percent used');
    expect(lines).toHaveLength(13);
    expect(lines.find((line) => line.startsWith(`${CURRENT},`))).toMatch(
      new RegExp(`^${CURRENT},${monthly}\\.00,`),
    );
  });

  await test.step('the alert e-mails and an 80 % actual alert on the cloud', async () => {
    await page.getByRole('button', { name: 'Set Preferences' }).click();
    const settings = page.getByRole('dialog', { name: 'Set Preferences' });
    await settings.getByLabel('Alert e-mails').fill(alertEmail);
    await settings.getByLabel('Alert e-mails').press('Enter');
    await settings.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Settings saved successfully.')).toBeVisible();

    await page.getByRole('button', { name: 'Set alert' }).click();
    const alert = page.getByRole('dialog', { name: 'Set alert: Total' });
    await expect(alert.getByLabel('Actual %')).toHaveValue('80');
    await alert.getByRole('switch', { name: 'Forecast alert' }).click();
    await alert.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Alert saved successfully')).toBeVisible();
    // Nothing of this month is billed yet: nothing fires.
    await page.waitForTimeout(2000);
    expect(mailsTo(alertEmail, 'Cumulo alert')).toHaveLength(0);
  });

  await test.step('this month is delivered and crosses 80 %: one bell notice, one e-mail', async () => {
    await generator.redeliver(sink, CURRENT);
    expect(generator.expected().periods[CURRENT]?.costNano).toBe(currentNano);
    await readReportsAgain(page, CURRENT, money(centsOfNano(currentNano) / 100));
    const bell = page.getByRole('button', { name: 'Notifications (1 unread)' });
    await expect(bell).toBeVisible({ timeout: 30_000 });
    await bell.click();
    await expect(
      page.getByRole('list', { name: 'Latest notifications' }).getByText(`Budget alert: Total on ${ACCOUNT}`),
    ).toBeVisible();
    await page.keyboard.press('Escape');
    await expect.poll(() => mailsTo(alertEmail, 'Cumulo alert').length, { timeout: 15_000 }).toBe(1);
    await page.screenshot({ path: `${SCREENS}/finance-alert-fired.png`, fullPage: true });
  });

  await test.step('the same month re-delivered: no second notice or e-mail', async () => {
    await generator.redeliver(sink, CURRENT);
    const redelivered = generator.expected().periods[CURRENT]?.costNano ?? 0n;
    expect(redelivered).not.toBe(currentNano);
    await readReportsAgain(page, CURRENT, money(centsOfNano(redelivered) / 100));
    // The evaluation runs just after the ingestion: the counts are watched for a few seconds.
    for (let second = 0; second < 5; second++) {
      await page.waitForTimeout(1000);
      expect(mailsTo(alertEmail, 'Cumulo alert')).toHaveLength(1);
      await expect(page.getByRole('button', { name: 'Notifications (1 unread)' })).toBeVisible();
    }
  });
  await store.close();
});
