import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import {
  AUTH_STORAGE_KEY,
  ROLE_ID,
  TRIAL_QUOTAS,
  billingMessages,
  formatBytes,
  transferMessages,
} from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { TEST_CARD, confirmChargeWithCard } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { withDatabase } from './database.ts';
import { expect, test } from './fixtures.ts';
import { linkFromMail, mailCount } from './mail.ts';
import { MiB, listSizes, seedObjects } from './seed-objects.ts';
import { chooseBuckets } from './selects.ts';
import { PASSWORD, signedInOwner } from './session.ts';
import { s3rverStore } from './stores.ts';

const AWS = 'Billing AWS';
const KiB = 1024;

interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
}

/** A call through the page's own fetch with its stored bearer, as the web app makes it (no screen involved). */
async function callApi(page: Page, method: string, url: string, body?: unknown): Promise<Answer> {
  return page.evaluate(
    async ({ method, url, body, key }) => {
      const response = await fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${localStorage.getItem(key) ?? ''}`,
          ...(body === null ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === null ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      };
    },
    { method, url, body: body ?? null, key: AUTH_STORAGE_KEY },
  );
}

/** Every API answer the test's pages receive, searched at the end for the card number. */
const answers: Promise<string>[] = [];
function recordAnswers(context: BrowserContext) {
  context.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/api/')) answers.push(response.text().catch(() => ''));
  });
}

async function signIn(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * A member with role User of the Owner's organisation, invited through POST /users/invite (the Owner has a card
 * by then), signed up through the e-mailed link's token and signed in on a page of their own.
 */
async function invitedUser(browser: Browser, baseURL: string | undefined, owner: Page): Promise<Page> {
  const email = `e2e.hedy.${Date.now()}@example.com`;
  const invited = await callApi(owner, 'POST', '/api/users/invite', [
    { first_name: 'Hedy', last_name: 'Lamarr', email, role_id: ROLE_ID.User },
  ]);
  expect(invited.status).toBe(200);
  const link = await linkFromMail(
    email,
    'You are invited to Cumulo',
    /http:\/\/localhost:\d+\/signup\?invite_token=[^\s"<]+/,
  );
  const token = new URL(link).searchParams.get('invite_token') ?? '';
  const context = await browser.newContext({ baseURL });
  recordAnswers(context);
  const page = await context.newPage();
  const accepted = await page.request.post('/api/user/signup', {
    data: { token, password: PASSWORD, firstname: 'Hedy', lastname: 'Lamarr' },
  });
  expect(accepted.status()).toBe(201);
  await signIn(page, email);
  return page;
}

test('billing: trial quotas, charge with a card in the modal, metered copy, a package, a member request, a refusal over quota', async ({
  page,
  browser,
  baseURL,
}) => {
  recordAnswers(page.context());
  const stamp = Date.now();
  const source = `bill-src-${stamp}`;
  const destination = `bill-dst-${stamp}`;
  const s3 = s3rverStore();
  await s3.createBucket(source);
  await s3.createBucket(destination);
  await seedObjects(
    s3,
    source,
    ['a.bin', 'b.bin', 'c.bin'].map((key) => ({ key, size: 1 * MiB })),
  );

  const { email: ownerEmail } = await signedInOwner(page, 'Bea');

  await test.step('a new Owner sees the trial quotas on the profile', async () => {
    await page.goto('/profile');
    const c2c = page.getByRole('group', { name: 'Cloud to cloud transfers' });
    await expect(c2c).toContainText(`0 Bytes of ${formatBytes(TRIAL_QUOTAS.c2c)}`);
    await expect(c2c.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '2');
    await expect(page.getByText('Plan: Trial')).toBeVisible();
  });

  await test.step('a cloud-to-cloud copy asks for the charge; the card is added in the modal; the copy runs and is counted', async () => {
    await connectAccount(page, 'aws', { Name: AWS, 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
    await chooseBuckets(page, '/c2c', [
      ['Source', AWS, source],
      ['Destination', AWS, destination],
    ]);
    const sourceFiles = page.getByRole('region', { name: 'Source files' });
    for (const name of ['a.bin', 'b.bin', 'c.bin'])
      await sourceFiles.getByRole('checkbox', { name: `Select ${name}` }).check();
    const copy = page.getByRole('button', { name: 'Copy', exact: true });
    await copy.click();
    await expect(page.getByRole('dialog', { name: 'Cloud To Cloud Transfer' })).toBeVisible();
    await confirmChargeWithCard(page);
    await expect(page.getByText(billingMessages.cardAdded)).toBeVisible();
    await copy.click();
    await expect(page.getByRole('dialog', { name: transferMessages.started })).toBeVisible();
    await expect.poll(async () => (await listSizes(s3, destination)).size, { timeout: 30_000 }).toBe(3);

    await page.goto('/profile');
    await expect(page.getByRole('group', { name: 'Cloud to cloud transfers' })).toContainText('3 MB of ');
  });

  await test.step('the Owner buys Analytics on /pricings and /analytics opens without the modal', async () => {
    await page.goto('/analytics');
    await expect(page.getByRole('dialog', { name: 'Subscribe to Analytics' })).toBeVisible();
    await page.goto('/pricings');
    await page
      .getByRole('region', { name: 'Analytics' })
      .getByRole('button', { name: 'Activate Now' })
      .click();
    const modal = page.getByRole('dialog', { name: 'Subscribe to Analytics' });
    await modal.getByRole('checkbox').check();
    await modal.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText(billingMessages.subscribed)).toBeVisible();
    await expect(modal).toBeHidden();
    await expect(page.getByRole('region', { name: 'Analytics' })).toContainText('Active');
    await page.goto('/analytics');
    await expect(page.getByRole('heading', { name: 'Analytics' })).toBeVisible();
    await expect(page.getByRole('dialog', { name: 'Subscribe to Analytics' })).toHaveCount(0);
  });

  await test.step("a member with role User presses 'Send Request': the Owner gets the bell notice and the e-mail", async () => {
    const mailsBefore = mailCount(ownerEmail);
    const member = await invitedUser(browser, baseURL, page);
    await member.goto('/pricings');
    const finance = member.getByRole('region', { name: 'Finance' });
    await expect(finance.getByRole('button', { name: 'Activate Now' })).toHaveCount(0);
    await finance.getByRole('button', { name: 'Send Request' }).click();
    await expect(member.getByText(billingMessages.requestSent)).toBeVisible();
    await member.context().close();

    await page.goto('/');
    const bell = page.getByRole('button', { name: /^Notifications \(\d+ unread\)$/ });
    await expect(bell).toBeVisible({ timeout: 15_000 });
    await bell.click();
    await expect(page.getByRole('list', { name: 'Latest notifications' })).toContainText('Finance');
    await expect.poll(() => mailCount(ownerEmail), { timeout: 15_000 }).toBeGreaterThan(mailsBefore);
  });

  await test.step('past the remaining trial quota the server refuses a transfer the UI check never saw', async () => {
    const otherContext = await browser.newContext({ baseURL });
    recordAnswers(otherContext);
    const other = await otherContext.newPage();
    await signedInOwner(other, 'Ivy');
    const confirmed = await callApi(other, 'PUT', '/api/organizations/_me', { confirmed_c2c: true });
    expect(confirmed.status).toBe(200);
    const connected = await callApi(other, 'POST', '/api/cloudaccount/insert', {
      cloudType: 1,
      name: 'Ivy AWS',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    expect(connected.status).toBe(201);
    const cloudId = String(connected.body?.id);
    const me = (await callApi(other, 'GET', '/api/users/_me')).body as { organization: { id: string } };
    // 10 GiB of real copying would take minutes: the trial counter is left 64 KiB from its end, as earlier
    // transfers would have left it.
    await withDatabase((client) =>
      client.query(
        `insert into quota_counters (organization_id, quota, period, used) values ($1, 'c2c', 'trial', $2)`,
        [me.organization.id, TRIAL_QUOTAS.c2c - 64 * KiB],
      ),
    );

    const refused = await callApi(other, 'POST', '/api/c2c/moveaws', {
      files: [{ path: 'a.bin', bucket_name: source }],
      cloud_id: cloudId,
      type: 1,
      destination: { cloud_id: cloudId, bucket_name: destination, path: 'ivy/' },
      skip_active: false,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      title: billingMessages.transfersQuotaTitle,
      message: billingMessages.quotaRemaining(formatBytes(64 * KiB)),
      remaining: 64 * KiB,
    });
    await other.context().close();
  });
  await test.step('the card number is in no answer, no server log line and no database row', async () => {
    const numbers = [TEST_CARD.number, TEST_CARD.number.replace(/\s/g, '')];
    const bodies = await Promise.all(answers);
    expect(bodies.length).toBeGreaterThan(20);
    expect(bodies.filter((body) => numbers.some((n) => body.includes(n)))).toEqual([]);
    const log = fs.readFileSync(process.env.E2E_SERVER_LOG ?? '', 'utf8');
    expect(numbers.filter((n) => log.includes(n))).toEqual([]);
    const tablesHolding = await withDatabase(async (client) => {
      const tables = await client.query<{ name: string }>(
        `select format('%I.%I', schemaname, tablename) as name from pg_tables
          where schemaname not in ('pg_catalog', 'information_schema')`,
      );
      const holding: string[] = [];
      for (const { name } of tables.rows) {
        const found = await client.query(`select 1 from ${name} t where t::text like any($1) limit 1`, [
          numbers.map((n) => `%${n}%`),
        ]);
        if (found.rowCount) holding.push(name);
      }
      return { searched: tables.rows.length, holding };
    });
    expect(tablesHolding.searched).toBeGreaterThan(20);
    expect(tablesHolding.holding).toEqual([]);
  });
});
