import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { expect, test } from './fixtures.ts';
import { connectAccount } from './cloud-accounts.ts';
import { signedInOwner } from './session.ts';
import { s3rverStore } from './stores.ts';

const run = promisify(execFile);

/** What a script does: curl with the key as HTTP Basic; answers the status line's code and the body. */
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

test('an access key made on /security-credentials lists buckets with curl, and stops once deleted', async ({
  page,
  baseURL,
}) => {
  const bucket = `e2e-keys-${Date.now()}`;
  await s3rverStore().createBucket(bucket);
  await signedInOwner(page, 'Keys');
  await connectAccount(page, 'aws', { Name: 'Keys AWS', 'Access Key': S3RVER_KEY, 'Secret Key': S3RVER_KEY });
  const accounts = await page.request.get('/api/cloudaccount/get_all', {
    headers: {
      authorization: `Bearer ${await page.evaluate(() => localStorage.getItem('Authorization') ?? '')}`,
    },
  });
  const [account] = (await accounts.json()) as { id: string }[];
  if (!account) throw new Error('the connected account is not listed');

  await page.goto('/security-credentials');
  await page.getByRole('button', { name: 'Create Key' }).click();
  const modal = page.getByRole('dialog');
  await expect(
    modal.getByText('This is the only time the secret key is shown.', { exact: false }),
  ).toBeVisible();
  const accessKey = (await modal.getByLabel('New access key').textContent()) ?? '';
  const secretKey = (await modal.getByLabel('New secret key').textContent()) ?? '';
  expect(accessKey).toMatch(/^CK[A-Z2-7]{18}$/);
  await modal.getByRole('button', { name: 'I have saved the secret key' }).click();
  await modal.waitFor({ state: 'hidden' });

  const listed = await curlListBuckets(baseURL ?? '', `${accessKey}:${secretKey}`, account.id);
  expect(listed.status, listed.body).toBe(200);
  expect(listed.body).toContain(bucket);

  await page.getByRole('button', { name: `Delete ${accessKey}` }).click();
  await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Key deleted successfully!')).toBeVisible();
  const refused = await curlListBuckets(baseURL ?? '', `${accessKey}:${secretKey}`, account.id);
  expect(refused.status).toBe(401);
});
