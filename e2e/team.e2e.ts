import { expect, test } from './fixtures.ts';
import { fillCardForm } from './billing.ts';
import { linkFromMail } from './mail.ts';
import { PASSWORD, signedInOwner } from './session.ts';

test('team: the Owner adds a card, invites a User, who accepts through the e-mailed link and is then deactivated', async ({
  page,
  browser,
  baseURL,
}) => {
  await signedInOwner(page, 'Olga');
  const invitee = `e2e.ivy.${Date.now()}@example.com`;

  await test.step('the Owner adds a card and invites a User on /users/invite', async () => {
    await page.goto('/billing/addcreditcard');
    await fillCardForm(page.locator('main'), 'Add Card');
    await expect(page).toHaveURL(/\/billing$/);
    await page.goto('/users/invite');
    await page.locator('#invite-0-first_name').fill('Ivy');
    await page.locator('#invite-0-last_name').fill('Tee');
    await page.locator('#invite-0-email').fill(invitee.toUpperCase());
    await page.getByRole('combobox', { name: 'Role of row 1' }).click();
    await page.locator('.ant-select-item-option:visible').filter({ hasText: 'User' }).click();
    await page.getByRole('button', { name: 'Send Invites' }).click();
    await expect(page.getByText('1 invites successfully sent.')).toBeVisible();
    await expect(page).toHaveURL(/\/users$/);
  });

  await test.step('the invitee signs up through the link, with the e-mail filled in and locked', async () => {
    const link = await linkFromMail(
      invitee,
      'You are invited to Cumulo',
      /http:\/\/localhost:\d+\/signup\?invite_token=[^\s"<]+/,
    );
    const context = await browser.newContext({ baseURL });
    const guest = await context.newPage();
    await guest.goto(link);
    await expect(guest.getByLabel('Email')).toHaveValue(invitee);
    await expect(guest.getByLabel('Email')).toBeDisabled();
    await expect(guest.getByLabel('First Name')).toHaveValue('Ivy');
    await guest.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await guest.getByLabel('Confirm Password').fill(PASSWORD);
    await guest.getByRole('checkbox').check();
    await guest.getByRole('button', { name: 'Sign Up' }).click();
    await expect(guest).toHaveURL(/\/login$/);
    await context.close();
  });

  await test.step('the new member appears on /users; the Owner deactivates them', async () => {
    await page.goto('/users');
    const card = page.getByLabel('Ivy Tee', { exact: true });
    await expect(card).toContainText(invitee);
    await expect(card).toContainText('User');
    const active = page.getByRole('switch', { name: 'Active: Ivy Tee' });
    await expect(active).toBeChecked();
    await active.click();
    await expect(page.getByText('User successfully deactivated')).toBeVisible();
    await expect(active).not.toBeChecked();
  });
});
