import { readFile } from 'node:fs/promises';
import type { Browser, Locator, Page } from '@playwright/test';
import {
  ACCOUNT_COLUMNS,
  TRANSFER_COST_COLUMNS,
  TRANSFER_GB_BYTES,
  TRANSFER_HISTORY_COLUMNS,
  USAGE_TOTAL_COLUMNS,
  adminMessages,
  directionOf,
  formatAdminCost,
  formatAdminRate,
  formatAdminSize,
  transferCostEstimate,
  transferMessages,
} from '@cumulo/contract';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';
import { expect, test } from './fixtures.ts';
import { confirmChargeWithCard } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { linkFromMail } from './mail.ts';
import { chooseBuckets } from './selects.ts';
import { E2E_OPERATOR_EMAIL, PASSWORD, signedInOwner } from './session.ts';
import { azuriteStore, s3rverStore } from './stores.ts';

const INVITE_LINK = /http:\/\/localhost:\d+\/signup\?invite_token=[^\s"<]+/;
const AWS = 'Admin AWS';
const AZURE = 'Admin Azure';
/** The objects the invited member copies: three, 40 MiB in all, enough for a cost the tables show in cents. */
const OBJECTS = [
  { key: 'docs/a.txt', size: 1000 },
  { key: 'docs/b.txt', size: 2000 },
  { key: 'media/c.bin', size: 40 * 1024 * 1024 - 3000 },
];
const BYTES = OBJECTS.reduce((sum, o) => sum + o.size, 0);
const DIRECTION = directionOf('aws', 'azure').label;
/** What the copy costs: AWS egress plus Cumulo's transfer charge, per GB of 1024³ bytes (as /calc prices it). */
const CHARGE = transferCostEstimate('aws', BYTES / TRANSFER_GB_BYTES);

/** The cells' texts of a table's data rows (antd's measure row and the empty row left out). */
async function tableRows(table: Locator): Promise<string[][]> {
  const rows = table.locator('tbody tr.ant-table-row');
  const count = await rows.count();
  const texts: string[][] = [];
  for (let i = 0; i < count; i++) {
    texts.push((await rows.nth(i).locator('td').allInnerTexts()).map((cell) => cell.trim()));
  }
  return texts;
}

/** RFC 4180 as the server writes it (contract csvLine): quoted cells may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && body[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

/** Presses a screen's "Download Report" and reads the file the browser saved. */
async function downloadReport(page: Page, scope: Locator | Page = page): Promise<string[][]> {
  const download = page.waitForEvent('download');
  await scope.getByRole('button', { name: 'Download Report' }).click();
  const file = await (await download).path();
  return parseCsv(await readFile(file, 'utf8'));
}

async function newPerson(browser: Browser, baseURL: string | undefined) {
  const context = await browser.newContext({ baseURL });
  return { context, page: await context.newPage() };
}

test('operator console: a new organisation, its invited Owner’s copy between two clouds, and the reports (tables and CSV) showing it', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const stamp = Date.now().toString(36);
  const orgName = `E2E Org ${stamp}`;
  const memberEmail = `e2e.member.${stamp}@example.com`;
  const source = `admin-src-${stamp}`;
  const container = `admin-dst-${stamp}`;
  const s3 = s3rverStore();
  await s3.createBucket(source);
  for (const o of OBJECTS) await s3.write(source, o.key, Buffer.alloc(o.size, 'x'), { size: o.size });
  await azuriteStore().createBucket(container);

  // The copy costs at least a cent, so the reports' Total Cost cannot pass as an empty $0.00.
  expect(formatAdminCost(CHARGE.total)).not.toBe('$0.00');
  await signedInOwner(page, 'Opal', E2E_OPERATOR_EMAIL);

  await test.step('the operator sees the Admin menu and creates an organisation on /addNewAccount', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Usage Detail' })).toBeVisible();
    await nav.getByRole('link', { name: 'Account', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Account', level: 2 })).toBeVisible();
    await page.getByRole('button', { name: 'Add New Account' }).click();
    await expect(page).toHaveURL(/\/addNewAccount$/);
    await page.getByLabel('Account Name').fill(orgName);
    await page.getByLabel('Description').fill('Made by the operator console e2e');
    await page.getByRole('button', { name: 'Add New Account' }).click();
    await expect(page.getByText(adminMessages.accountCreated)).toBeVisible();
    await expect(page).toHaveURL(/\/admindaccount$/);
    // The same name again is refused under its field.
    await page.goto('/addNewAccount');
    await page.getByLabel('Account Name').fill(orgName);
    await page.getByRole('button', { name: 'Add New Account' }).click();
    await expect(page.getByText(adminMessages.accountExists)).toBeVisible();
  });

  await test.step('the operator invites a member into it on /addNewUser', async () => {
    await page.goto('/addNewUser');
    await page.getByLabel('First Name').fill('Mia');
    await page.getByLabel('Last Name').fill('Member');
    await page.getByLabel('Email').fill(memberEmail);
    const select = page.getByRole('combobox', { name: 'Select Account' });
    await select.click();
    await select.fill(orgName);
    await page.locator('.ant-select-item-option:visible').filter({ hasText: orgName }).first().click();
    await page.getByRole('button', { name: 'Invite User' }).click();
    await expect(page.getByText(adminMessages.userInvited(memberEmail))).toBeVisible();
    await expect(page).toHaveURL(/\/userList$/);
  });

  const member = await newPerson(browser, baseURL);
  await test.step('the member accepts, connects S3 and Azure and copies a bucket between them', async () => {
    const guest = member.page;
    await guest.goto(await linkFromMail(memberEmail, 'You are invited to Cumulo', INVITE_LINK));
    await expect(guest.getByLabel('Email')).toHaveValue(memberEmail);
    await guest.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await guest.getByLabel('Confirm Password').fill(PASSWORD);
    await guest.getByRole('checkbox').check();
    await guest.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expect(guest).toHaveURL(/\/login$/);
    await guest.getByLabel('Email').fill(memberEmail);
    await guest.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await guest.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(guest).not.toHaveURL(/\/login/);
    // Not an operator: the console is closed to them.
    await guest.goto('/admindaccount');
    await expect(guest.getByText(adminMessages.operatorsOnly)).toBeVisible();

    await connectAccount(guest, 'aws', { Name: AWS, 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
    await connectAccount(guest, 'azure', {
      Name: AZURE,
      'Storage account name': AZURITE_ACCOUNT,
      'Account key': AZURITE_KEY,
    });
    await chooseBuckets(guest, '/migration', [
      ['Source', AWS, source],
      ['Destination', AZURE, container],
    ]);
    const copyAll = guest.getByRole('button', { name: 'Copy Entire Buckets' });
    await copyAll.click();
    // The new organisation's Owner confirms the transfer charge with a card first.
    await confirmChargeWithCard(guest);
    await copyAll.click();
    const started = guest.getByRole('dialog', { name: transferMessages.started });
    await started.getByRole('button', { name: 'Transfer Status' }).click();
    const row = guest
      .getByRole('table', { name: 'Transfer history' })
      .getByRole('row')
      .filter({ hasText: source })
      .filter({ hasText: container });
    await expect(row.getByRole('cell').nth(2)).toHaveText('Completed', { timeout: 120_000 });
    await member.context.close();
  });

  await test.step('/admindaccount lists the organisation with its member; Detail opens its usage', async () => {
    await page.goto('/admindaccount');
    await page.getByRole('searchbox', { name: 'Search accounts' }).fill(orgName);
    await page.getByRole('searchbox', { name: 'Search accounts' }).press('Enter');
    const table = page.getByRole('table');
    const row = table.locator('tbody tr.ant-table-row').filter({ hasText: orgName });
    await expect(row).toHaveCount(1);
    // Account Name, Total Usage, Total Cost, Creation date, Status, Users, Detail.
    await expect(row.locator('td').nth(4)).toHaveText('Active');
    await expect(row.locator('td').nth(5)).toHaveText('1');
    // The report under the same search: the table's row without its Detail link.
    const csv = await downloadReport(page);
    expect(csv[0]).toEqual(ACCOUNT_COLUMNS.map((c) => c.title));
    expect(csv.slice(1)).toEqual((await tableRows(table)).map((cells) => cells.slice(0, -1)));
    await row.getByRole('link', { name: `Detail of ${orgName}` }).click();
    await expect(page).toHaveURL(/\/usageDetail\?account=[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: orgName })).toBeVisible();
  });

  await test.step('/usageDetail shows the copy with its size and cost; the CSV holds the table’s rows', async () => {
    const totals = page.getByRole('table', { name: 'Total Transfer/Cost Report' });
    const totalRow = totals.locator('tbody tr.ant-table-row').filter({ hasText: DIRECTION });
    await expect(totalRow).toHaveCount(1);
    const [totalCells] = await tableRows(totals);
    expect(totalCells?.slice(0, USAGE_TOTAL_COLUMNS.length)).toEqual([
      DIRECTION,
      formatAdminSize(BYTES),
      formatAdminCost(CHARGE.total),
    ]);
    await expect(page.getByRole('figure', { name: 'Total Transfer per direction' })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: DIRECTION })).toBeChecked();

    const history = page.getByRole('table', { name: 'Transfer History' });
    await expect(history.locator('tbody tr.ant-table-row')).toHaveCount(1);
    const shown = await tableRows(history);
    const cells = shown[0] ?? [];
    expect(cells[0]).toContain('Mia');
    expect(cells.slice(1, 6)).toEqual([DIRECTION, source, container, formatAdminSize(BYTES), '3']);
    expect(cells[6]).toMatch(/^\d\d\/\d\d\/\d{4} - \d\d:\d\d$/);
    expect(cells[7]).toMatch(/^\d\d\/\d\d\/\d{4} - \d\d:\d\d$/);

    const csv = await downloadReport(page);
    expect(csv[0]).toEqual(TRANSFER_HISTORY_COLUMNS.map((c) => c.title));
    expect(csv.slice(1)).toEqual(shown);

    // The filter narrowed to this direction and the member keeps the row; its Detail carries the filter on.
    await page.getByRole('combobox', { name: 'User' }).click();
    await page.locator('.ant-select-item-option:visible').filter({ hasText: 'Mia' }).first().click();
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(/[?&]user=[0-9a-f-]{36}/);
    await expect(history.locator('tbody tr.ant-table-row')).toHaveCount(1);
    await totalRow.getByRole('link', { name: `Detail of ${DIRECTION}` }).click();
    await expect(page).toHaveURL(/\/transferCostDetail\?.*directions=aws%3Aazure/);
    await expect(page).toHaveURL(/[?&]user=/);
  });

  await test.step('/transferCostDetail: the direction between the two accounts, searchable, and its CSV', async () => {
    await expect(page.getByRole('heading', { name: 'Transfer and Cost Report' })).toBeVisible();
    const table = page.getByRole('table', { name: 'Transfer and Cost Report' });
    await expect(table.locator('tbody tr.ant-table-row')).toHaveCount(1);
    const shown = await tableRows(table);
    const cells = shown[0] ?? [];
    expect(cells).toEqual([
      DIRECTION,
      AWS,
      AZURE,
      formatAdminSize(BYTES),
      formatAdminRate(CHARGE.rate),
      formatAdminCost(CHARGE.total),
    ]);

    const csv = await downloadReport(page);
    expect(csv[0]).toEqual(TRANSFER_COST_COLUMNS.map((c) => c.title));
    expect(csv.slice(1)).toEqual(shown);

    const search = page.getByRole('searchbox', { name: 'Search directions' });
    await search.fill('AWS TO AZURE and then some more');
    // The field takes 20 characters; the server's search is case-insensitive.
    await expect(search).toHaveValue('AWS TO AZURE and the');
    await search.fill('aws to azure');
    await search.press('Enter');
    await expect(table.locator('tbody tr.ant-table-row')).toHaveCount(1);
    await search.fill('wasabi');
    await search.press('Enter');
    await expect(table.locator('tbody tr.ant-table-row')).toHaveCount(0);
    await expect(table.locator('.ant-empty-description')).toHaveText('No data');
  });

  await test.step('/userList shows the member in the organisation with the bytes they moved', async () => {
    await page.goto('/userList');
    await page.getByRole('searchbox', { name: 'Search users' }).fill(`member.${stamp}`);
    await page.getByRole('searchbox', { name: 'Search users' }).press('Enter');
    const row = page.getByRole('table').locator('tbody tr.ant-table-row').filter({ hasText: 'Mia' });
    await expect(row).toHaveCount(1);
    // User Name, Total Usage, Account Name, Registration Date, Status, Detail.
    await expect(row.locator('td').nth(1)).toHaveText(formatAdminSize(BYTES));
    await expect(row.locator('td').nth(2)).toHaveText(orgName);
    await expect(row.getByRole('switch')).toBeChecked();
  });
});
