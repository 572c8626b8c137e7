import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { c2cMessages, transferMessages, type CostEstimate } from '@cumulo/contract';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';

let server: TestServer;
let s3rver: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let stranger: Awaited<ReturnType<typeof signedInMember>>;
const accounts: Record<string, string> = {};
let strangerAccount: string;

const call = (url: string, token: string, body: unknown) => callApi(server, 'POST', url, token, body);

async function connect(token: string, fields: Record<string, unknown>): Promise<string> {
  const res = await call('/api/cloudaccount/insert', token, {
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
    ...fields,
  });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

/**
 * Cost calls read only an account's provider, never its store: Azure and Google accounts are arranged as rows
 * (there is no Google emulator), the S3 family through the real insert call against s3rver.
 */
async function accountRow(organizationId: string, provider: 'azure' | 'google', name: string) {
  const { rows } = await server.db.pool.query<{ id: string }>(
    `insert into cloud_accounts (organization_id, provider, name, credentials, key_hint)
     values ($1, $2, $3, $4, '••••') returning id`,
    [organizationId, provider, name, 'never-read'],
  );
  return rows[0]?.id ?? '';
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, wasabi: s3rver.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
  accounts.aws = await connect(owner.token, { cloudType: 1, name: 'Lab AWS' });
  accounts.wasabi = await connect(owner.token, { cloudType: 2, name: 'Lab Wasabi' });
  accounts.generic = await connect(owner.token, {
    cloudType: 8,
    name: 'Lab Generic',
    serviceUrl: s3rver.endpoint,
  });
  accounts.azure = await accountRow(owner.principal.organizationId, 'azure', 'Lab Blob');
  accounts.google = await accountRow(owner.principal.organizationId, 'google', 'Lab GCS');
  strangerAccount = await connect(stranger.token, { cloudType: 1, name: 'Their AWS' });
});
afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
});

const estimate = (source: string, destination: string, size: unknown, token = owner.token) =>
  call('/api/transfer/calculate_cost', token, {
    sourceCloudAccountId: source,
    destinationCloudAccountId: destination,
    size,
  });

describe('POST /transfer/calculate_cost against embedded PostgreSQL', () => {
  it("charges the source provider's egress plus $0.15/GB, to 5 decimals", async () => {
    const cases: Array<[string, string, number, Partial<CostEstimate>]> = [
      // 10 GB × 0.15 egress + 10 GB × 0.15 transfer.
      ['aws', 'azure', 10, { egressPerGb: 0.15, egressCost: 1.5, transferCost: 1.5, total: 3, rate: 0.3 }],
      // 3 × 0.087 = 0.261; 3 × 0.15 = 0.45.
      [
        'azure',
        'aws',
        3,
        { egressPerGb: 0.087, egressCost: 0.261, transferCost: 0.45, total: 0.711, rate: 0.237 },
      ],
      ['wasabi', 'aws', 1, { egressPerGb: 0, egressCost: 0, transferCost: 0.15, total: 0.15, rate: 0.15 }],
      // 7 × 0.12 = 0.84; 7 × 0.15 = 1.05.
      ['google', 'wasabi', 7, { egressPerGb: 0.12, egressCost: 0.84, transferCost: 1.05, total: 1.89 }],
      // Generic S3 has no row in the egress table: priced like aws.
      ['generic', 'aws', 2, { egressPerGb: 0.15, egressCost: 0.3, transferCost: 0.3, total: 0.6 }],
    ];
    for (const [source, destination, size, expected] of cases) {
      const res = await estimate(accounts[source] ?? '', accounts[destination] ?? '', size);
      expect(res.status, `${source} → ${destination}`).toBe(200);
      expect(res.body).toMatchObject({ sizeGb: size, transferPerGb: 0.15, ...expected });
    }
  });

  it('prices the size the calculator screen sends rounded to a whole number of GB, at least 1 (spec 000 §5)', async () => {
    // (size sent, GB priced, azure egress 0.087/GB + 0.15/GB transfer)
    const cases: Array<[number, number, Partial<CostEstimate>]> = [
      [0.4, 1, { egressCost: 0.087, transferCost: 0.15, total: 0.237 }],
      [0, 1, { egressCost: 0.087, transferCost: 0.15, total: 0.237 }],
      [2.6, 3, { egressCost: 0.261, transferCost: 0.45, total: 0.711 }],
      [1.0001, 1, { egressCost: 0.087, transferCost: 0.15, total: 0.237 }],
    ];
    for (const [size, sizeGb, expected] of cases) {
      const res = await estimate(accounts.azure ?? '', accounts.aws ?? '', size);
      expect(res, `size ${size}`).toMatchObject({ status: 200, body: { sizeGb, ...expected } });
    }
  });

  it('refuses a missing or negative size with the calculator rule', async () => {
    for (const size of [undefined, -1]) {
      const res = await estimate(accounts.aws ?? '', accounts.azure ?? '', size);
      expect(res).toMatchObject({ status: 400, body: { message: transferMessages.calculatorSizeMin } });
    }
  });

  it('answers 400 for an account that is not an id and 404 for another organisation’s account', async () => {
    const bad = await estimate('aws', accounts.azure ?? '', 5);
    expect(bad).toMatchObject({ status: 400, body: { message: 'Choose a cloud account.' } });
    expect((await estimate(strangerAccount, accounts.aws ?? '', 5)).status).toBe(404);
    expect((await estimate(accounts.aws ?? '', strangerAccount, 5)).status).toBe(404);
  });
});

describe('POST /transfers/costs against embedded PostgreSQL', () => {
  const costs = (body: unknown) => call('/api/transfers/costs', owner.token, body);

  it('prices bytes by provider and direction', async () => {
    // 1610612736 bytes = 1.5 GB: 1.5 × 0.087 = 0.1305 egress, 1.5 × 0.15 = 0.225 transfer.
    const c2c = await costs({ service_code: 'azure', size: 1_610_612_736, direction: 'c2c' });
    expect(c2c).toMatchObject({
      status: 200,
      body: { sizeGb: 1.5, egressCost: 0.1305, transferCost: 0.225, total: 0.3555, rate: 0.237 },
    });
    // 536870912 bytes = 0.5 GB downloaded from Google: 0.06 egress, no transfer charge.
    const download = await costs({ service_code: 'google', size: 536_870_912, direction: 'download' });
    expect(download.body).toMatchObject({ sizeGb: 0.5, transferPerGb: 0, egressCost: 0.06, total: 0.06 });
    const upload = await costs({ service_code: 'aws', size: 1_073_741_824, direction: 'upload' });
    expect(upload.body).toMatchObject({ sizeGb: 1, egressCost: 0, transferCost: 0, total: 0 });
  });

  it('answers 400 for an unknown service, direction or a negative size', async () => {
    expect(await costs({ service_code: 'dropbox', size: 1, direction: 'c2c' })).toMatchObject({
      status: 400,
      body: { message: c2cMessages.unknownService },
    });
    expect(await costs({ service_code: 'aws', size: 1, direction: 'sideways' })).toMatchObject({
      status: 400,
      body: { message: c2cMessages.unknownDirection },
    });
    expect((await costs({ service_code: 'aws', size: -1, direction: 'c2c' })).status).toBe(400);
  });
});

describe('GET /transfers/s3_costs against embedded PostgreSQL', () => {
  it("answers S3's prices, the ones /transfers/costs and the estimates charge", async () => {
    const res = await callApi(server, 'GET', '/api/transfers/s3_costs', stranger.token);
    expect(res).toMatchObject({
      status: 200,
      body: {
        currency: 'USD',
        storage_per_gb_month: [
          { upto_gb: 51_200, per_gb: 0.023 },
          { upto_gb: 512_000, per_gb: 0.022 },
          { upto_gb: null, per_gb: 0.021 },
        ],
        egress_per_gb: 0.15,
        ingress_per_gb: 0,
        transfer_charge_per_gb: 0.15,
      },
    });
    // The same per-GB rates as a priced transfer of 1 GB out of aws.
    const priced = await call('/api/transfers/costs', owner.token, {
      service_code: 'aws',
      size: 1_073_741_824,
      direction: 'c2c',
    });
    expect(priced.body).toMatchObject({ egressPerGb: 0.15, transferPerGb: 0.15 });
    const anonymous = await server.app.inject({ method: 'GET', url: '/api/transfers/s3_costs' });
    expect(anonymous.statusCode).toBe(401);
  });
});
