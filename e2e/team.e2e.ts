import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from '@playwright/test';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { expect, test } from './fixtures.ts';
import { fillCardForm } from './billing.ts';
import { connectAccount } from './cloud-accounts.ts';
import { linkFromMail } from './mail.ts';
import { chooseBuckets } from './selects.ts';
import { PASSWORD, signedInOwner } from './session.ts';
import { s3rverStore } from './stores.ts';

const run = promisify(execFile);
const ACCOUNT = 'Team AWS';
const INVITE_LINK = /http:\/\/localhost:\d+\/signup\?invite_token=[^\s"<]+/;

/** What a script does: curl with the key as HTTP Basic; answers the status code and the body. */
async function curlListBuckets(baseURL: string, credentials: string, accountId: string) {
  const { stdout } = await run('curl', [
    '-sS',
    '-u',
    credentials,
    '-H',
    'content-type: application/json',
    '-d',
    JSON.stringify({ id: accountId }),
    '-w',
    '\n%{http_code}',
    `${baseURL}/api/cloudaccount/list_buckets`,
  ]);
  const lines = stdout.trimEnd().split('\n');
  return { status: Number(lines.at(-1)), body: lines.slice(0, -1).join('\n') };
}

/** The bearer the web stored for `page`, for the few checks made through the API the page itself calls. */
const bearerOf = async (page: Page) =>
  `Bearer ${await page.evaluate(() => localStorage.getItem('Authorization') ?? '')}`;

/** A second browser, for a person other than the Owner. */
async function newPerson(browser: Browser, baseURL: string | undefined) {
  const context = await browser.newContext({ baseURL });
  return { context, page: await context.newPage() };
}

/** One row of the invite form. */
async function inviteRow(page: Page, row: number, first: string, last: string, email: string, role: string) {
  await page.locator(`#invite-${row}-first_name`).fill(first);
  await page.locator(`#invite-${row}-last_name`).fill(last);
  await page.locator(`#invite-${row}-email`).fill(email);
  // A click that lands while the list is still opening selects nothing (seen on a loaded CI run): retry until the
  // list closed on a pick.
  const select = page.getByRole('combobox', { name: `Role of row ${row + 1}` });
  await expect(async () => {
    if ((await select.getAttribute('aria-expanded')) !== 'true') await select.click({ timeout: 5000 });
    await page.locator('.ant-select-item-option:visible').filter({ hasText: role }).click({ timeout: 5000 });
    await expect(select).toHaveAttribute('aria-expanded', 'false', { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
}

test('team: the Owner invites two people (password and single sign-on), turns off a User’s transfers, uses an API key, and /logs shows who did each', async ({
  page,
  browser,
  baseURL,
}) => {
  const stamp = Date.now();
  const source = `e2e-team-src-${stamp}`;
  const destination = `e2e-team-dst-${stamp}`;
  const store = s3rverStore();
  await store.createBucket(source);
  await store.createBucket(destination);
  await store.write(source, 'plans/q1.txt', Buffer.from('first quarter'), { size: 13 });

  const ivy = `e2e.ivy.${stamp}@example.com`;
  // The local OpenID provider (e2e/oidc-provider.ts) gives the login `x` the verified address x@example.com and
  // the name "x Sso"; a member who signs in through a provider keeps the provider's name.
  const ssoLogin = `sam${stamp}`;
  const sam = `${ssoLogin}@example.com`;

  await signedInOwner(page, 'Olga');

  await test.step('the Owner adds a card, connects an account and invites Ivy (User) and Sam (Admin)', async () => {
    await page.goto('/billing/addcreditcard');
    await fillCardForm(page.locator('main'), 'Add Card');
    await expect(page).toHaveURL(/\/billing$/);
    await connectAccount(page, 'aws', { Name: ACCOUNT, 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
    await page.goto('/users/invite');
    await inviteRow(page, 0, 'Ivy', 'Tee', ivy.toUpperCase(), 'User');
    await inviteRow(page, 1, 'Sam', 'Sso', sam, 'Admin');
    await page.getByRole('button', { name: 'Send Invites' }).click();
    await expect(page.getByText('2 invites successfully sent.')).toBeVisible();
    await expect(page).toHaveURL(/\/users$/);
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await expect(pending).toContainText(ivy);
    await expect(pending).toContainText(sam);
  });

  const ivyBrowser = await newPerson(browser, baseURL);
  await test.step('Ivy accepts through the e-mailed link with a password, and signs in', async () => {
    const guest = ivyBrowser.page;
    await guest.goto(await linkFromMail(ivy, 'You are invited to Cumulo', INVITE_LINK));
    await expect(guest.getByLabel('Email')).toHaveValue(ivy);
    await expect(guest.getByLabel('Email')).toBeDisabled();
    await guest.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await guest.getByLabel('Confirm Password').fill(PASSWORD);
    await guest.getByRole('checkbox').check();
    await guest.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expect(guest).toHaveURL(/\/login$/);
    await guest.getByLabel('Email').fill(ivy);
    await guest.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await guest.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(guest).not.toHaveURL(/\/login/);
  });

  await test.step('Sam accepts through the e-mailed link at the organisation’s OpenID provider', async () => {
    const { context, page: guest } = await newPerson(browser, baseURL);
    await guest.goto(await linkFromMail(sam, 'You are invited to Cumulo', INVITE_LINK));
    await guest.getByRole('button', { name: 'Sign up with Local SSO' }).click();
    // oidc-provider's own development login and consent pages.
    await guest.locator('input[name="login"]').fill(ssoLogin);
    await guest.locator('input[name="password"]').fill('any');
    await guest.getByRole('button', { name: 'Sign-in' }).click();
    await guest.getByRole('button', { name: 'Continue' }).click();
    await expect(guest).toHaveURL((url) => url.pathname === '/' && url.hash === '');
    await guest.goto('/profile');
    await expect(guest.getByText(sam).first()).toBeVisible();
    await context.close();
  });

  await test.step('both appear on /users with their roles; no invitation is pending any more', async () => {
    await page.goto('/users');
    await expect(page.getByLabel('Ivy Tee', { exact: true })).toContainText('User');
    await expect(page.getByLabel(`${ssoLogin} Sso`, { exact: true })).toContainText('Admin');
    await expect(page.getByRole('table', { name: 'Pending invitations' })).toContainText(
      'No pending invitations',
    );
  });

  await test.step('the Owner copies a file on /c2c, confirming the transfer charge with the card on file', async () => {
    await chooseBuckets(page, '/c2c', [
      ['Source', ACCOUNT, source],
      ['Destination', ACCOUNT, destination],
    ]);
    await page
      .getByRole('region', { name: 'Source files' })
      .getByRole('checkbox', { name: 'Select plans' })
      .check();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    const charge = page.getByRole('dialog', { name: 'Cloud To Cloud Transfer' });
    await charge.getByRole('button', { name: 'Confirm' }).click();
    await expect(charge).toBeHidden();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(page.getByRole('dialog', { name: 'Transfer Started' })).toBeVisible();
  });

  await test.step('the Owner turns off Ivy’s transfers on her page; her copy is refused', async () => {
    await page.goto('/users');
    await page.getByLabel('Ivy Tee', { exact: true }).getByRole('link').first().click();
    const transfers = page.getByRole('switch', { name: 'Transfers' });
    await expect(transfers).toBeChecked();
    await transfers.click();
    await expect(transfers).not.toBeChecked();

    const guest = ivyBrowser.page;
    await chooseBuckets(guest, '/c2c', [
      ['Source', ACCOUNT, source],
      ['Destination', ACCOUNT, destination],
    ]);
    await guest
      .getByRole('region', { name: 'Source files' })
      .getByRole('checkbox', { name: 'Select plans' })
      .check();
    await guest.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(guest.getByText('Your access to Transfers is turned off.', { exact: false })).toBeVisible();
    const refused = await guest.request.get('/api/transfer/get_all', {
      headers: { authorization: await bearerOf(guest) },
    });
    expect(refused.status()).toBe(403);
    await ivyBrowser.context.close();
  });

  let accessKey = '';
  await test.step('an access key made on /security-credentials lists the buckets with curl, and stops once deleted', async () => {
    const accounts = await page.request.get('/api/cloudaccount/get_all', {
      headers: { authorization: await bearerOf(page) },
    });
    const [account] = (await accounts.json()) as { id: string }[];
    if (!account) throw new Error('the connected account is not listed');

    await page.goto('/security-credentials');
    await page.getByRole('button', { name: 'Create Key' }).click();
    const modal = page.getByRole('dialog');
    await expect(
      modal.getByText('This is the only time the secret key is shown.', { exact: false }),
    ).toBeVisible();
    accessKey = (await modal.getByLabel('New access key').textContent()) ?? '';
    const secretKey = (await modal.getByLabel('New secret key').textContent()) ?? '';
    expect(accessKey).toMatch(/^CK[A-Z2-7]{18}$/);
    await modal.getByRole('button', { name: 'I have saved the secret key' }).click();
    await modal.waitFor({ state: 'hidden' });

    const listed = await curlListBuckets(baseURL ?? '', `${accessKey}:${secretKey}`, account.id);
    expect(listed.status, listed.body).toBe(200);
    expect(listed.body).toContain(source);

    await page.getByRole('button', { name: `Delete ${accessKey}` }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Key deleted successfully!')).toBeVisible();
    const gone = await curlListBuckets(baseURL ?? '', `${accessKey}:${secretKey}`, account.id);
    expect(gone.status).toBe(401);
  });

  await test.step('/logs shows each of these changes with its author', async () => {
    await page.goto('/logs');
    await expect(page.getByRole('heading', { name: 'Users Activities' })).toBeVisible();
    const entries = page.getByRole('list', { name: 'Audit entries' });
    const entry = (entity: string, type: string, author: string) =>
      entries
        .getByRole('listitem')
        .filter({ hasText: entity })
        .filter({ hasText: type })
        .filter({ hasText: author });
    await expect(entry('Payment card', 'Added', 'Olga Hopper').first()).toBeVisible();
    await expect(entry('Cloud account', 'Added', 'Olga Hopper').first()).toBeVisible();
    await expect(entry('Invitation', 'Added', 'Olga Hopper')).toHaveCount(2);
    await expect(entry('User', 'Added', 'Ivy Tee').first()).toBeVisible();
    await expect(entry('Transfer', 'Added', 'Olga Hopper').first()).toBeVisible();
    await expect(entry('User permission', 'Modified', 'Olga Hopper').first()).toBeVisible();
    await expect(entry('API key', 'Added', 'Olga Hopper').filter({ hasText: accessKey })).toBeVisible();
    await expect(entry('API key', 'Deleted', 'Olga Hopper').filter({ hasText: accessKey })).toBeVisible();
  });
});
