import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_COLUMNS,
  BATCH_STATUS,
  ROLE_ID,
  TRANSFER_COST_COLUMNS,
  TRANSFER_HISTORY_COLUMNS,
  USAGE_TOTAL_COLUMNS,
  USER_COLUMNS,
  adminMessages,
  csvLine,
  memberMessages,
  type AdminAccountsAnswer,
  type AdminColumn,
  type AdminTransferCostsAnswer,
  type AdminUsageFiltersAnswer,
  type AdminUsageHistoryAnswer,
  type AdminUsageTotalRow,
  type AdminUsersAnswer,
  type TransferBatch,
  type TransferList,
} from '@cumulo/contract';
import { startS3rver, S3RVER_KEY, type S3rverServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectAccount,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { AdminService } from './admin.service.ts';
import { AdminRepo } from './admin.repo.ts';
import { AdminUsageRepo } from './admin-usage.repo.ts';
import { InstanceOperatorsRepo } from './instance-operators.repo.ts';

/**
 * The instance operator's console through the real API on embedded PostgreSQL: who is an operator, the 403 every
 * other caller gets, and the reports over every organisation on data arranged in the tables (last month's batches,
 * uploads, agent uploads, billed analytics) and on a real transfer copied by the worker role between two accounts
 * on s3rver (aws, and wasabi pointed at the same s3rver); invitations go to a real SMTP sink.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const PASSWORD = 'Sunny#day7';
const BOSS = 'boss@example.com';

let server: TestServer;
let s3rver: S3rverServer;
/** The first account of this fresh install. */
let first: Member;
/** The Owner of an ordinary organisation, Acme Films, and a User of it. */
let owner: Member;
let member: Member;
/** Named by OPERATOR_EMAILS (written there in another case). */
let boss: Member;
let acmeAws: string;
let acmeWasabi: string;
let firstAzure: string;
let firstGeneric: string;
let firstWasabi: string;

const call = (method: Method, url: string, who: Member, body?: unknown) =>
  callApi(server, method, url, who.token, body);
const messageOf = (res: { body: unknown }) => (res.body as { message: string }).message;

/** The previous calendar month (UTC), mid-month, and its 'YYYY-MM'. */
const now = new Date();
const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15, 12));
const lastMonthKey = lastMonth.toISOString().slice(0, 7);
/** Two months ago: in nobody's month total, in everybody's all-time usage. */
const longAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 3, 8));

async function login(email: string) {
  const request = await server.app.inject({ method: 'POST', url: '/api/authentication/request_token' });
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/authentication/Login',
    payload: {
      requestToken: (request.json() as { token: string }).token,
      username: email,
      password: PASSWORD,
    },
  });
  return (res.json() as { jwtToken: string }).jwtToken;
}

/** A new organisation's Owner with this exact address, signed up, verified and signed in. */
async function ownerWithEmail(email: string): Promise<Member> {
  await server.services.identity.signup(
    { email, password: PASSWORD, first_name: 'Bo', last_name: 'Ss' },
    { ip: '127.0.0.1' },
  );
  await server.db.pool.query('update users set email_verified_at = now() where email = $1', [email]);
  const token = await login(email);
  const principal = await server.services.auth.verifyBearer(token);
  if (!principal) throw new Error('token did not verify');
  return { email, token, principal };
}

async function sql<Row extends object = Record<string, unknown>>(text: string, params: unknown[] = []) {
  return (await server.db.pool.query<Row>(text, params)).rows;
}

/** A cloud account written as the connect call stores one (the reports read its provider and name only). */
async function accountRow(organizationId: string, provider: string, name: string) {
  const [row] = await sql<{ id: string }>(
    `insert into cloud_accounts (organization_id, provider, name, credentials, key_hint)
     values ($1, $2, $3, 'sealed', 'abcd') returning id`,
    [organizationId, provider, name],
  );
  return row?.id ?? '';
}

/** A finished batch as the engine leaves one (status Completed, counters kept). */
async function batchRow(values: {
  organizationId: string;
  userId: string | null;
  source: string | null;
  destination: string | null;
  bytes: number;
  objects?: number;
  at: Date;
  finishedAt?: Date | null;
  sourceBucket?: string;
}) {
  const [row] = await sql<{ id: string }>(
    `insert into transfer_batches (organization_id, user_id, operation, source_cloud_account_id, source_bucket,
       destination_cloud_account_id, destination_bucket, status, phase, total_number, total_size,
       transferred_number, transferred_size, requested_at, finished_at)
     values ($1, $2, 'copy', $3, $4, $5, 'dst-bucket', 4, 'finished', $6, $7, $6, $7, $8, $9) returning id`,
    [
      values.organizationId,
      values.userId,
      values.source,
      values.sourceBucket ?? 'src-bucket',
      values.destination,
      values.objects ?? 3,
      values.bytes,
      values.at.toISOString(),
      values.finishedAt === null
        ? null
        : (values.finishedAt ?? new Date(values.at.getTime() + 90_000)).toISOString(),
    ],
  );
  return row?.id ?? '';
}

/** Every page of a JSON list, `pagesize` at a time. */
async function allPages<Row>(url: string, key: string, pagesize: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 1; ; page++) {
    const res = await call(
      'GET',
      `${url}${url.includes('?') ? '&' : '?'}page=${page}&pagesize=${pagesize}`,
      first,
    );
    expect(res.status, res.raw).toBe(200);
    const chunk = (res.body as Record<string, Row[]>)[key] ?? [];
    rows.push(...chunk);
    if (chunk.length < pagesize) return rows;
  }
}

/** The file the table's "Download Report" must equal: BOM, titles, each row's cells as the table shows them. */
function csvOfRows<Row>(columns: ReadonlyArray<AdminColumn<Row>>, rows: Row[], tz: string) {
  return `\uFEFF${csvLine(columns.map((c) => c.title))}${rows.map((r) => csvLine(columns.map((c) => c.cell(r, tz)))).join('')}`;
}

async function csvOf(url: string) {
  const res = await server.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${first.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[a-z-]+\.csv"$/);
  return res.body;
}

async function batchOf(id: string, token: string): Promise<TransferBatch | undefined> {
  const list = (await callApi(server, 'GET', '/api/transfer/get_all?type=1&pagesize=200', token))
    .body as TransferList;
  return list.items.find((b) => b.id === id);
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer(
    {
      // Mixed case and spaces: the rule compares addresses case-insensitively.
      OPERATOR_EMAILS: ` Boss@Example.COM , ops@example.com`,
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, wasabi: s3rver.endpoint }),
    },
    undefined,
    { jobs: true },
  );
  first = await signedInMember(server, 'first');
  owner = await signedInMember(server, 'owner');
  member = await signedInMember(server, 'member', { principal: owner.principal, roleId: ROLE_ID.User });
  boss = await ownerWithEmail(BOSS);
  await sql(`update organizations set name = 'Acme Films' where id = $1`, [owner.principal.organizationId]);
  await sql(`update organizations set name = 'First Light' where id = $1`, [first.principal.organizationId]);
  await sql(`update organizations set name = 'Boss & Co' where id = $1`, [boss.principal.organizationId]);

  const acme = owner.principal.organizationId;
  acmeAws = await accountRow(acme, 'aws', 'Acme S3');
  acmeWasabi = await accountRow(acme, 'wasabi', 'Acme Vault');
  const firstOrg = first.principal.organizationId;
  firstAzure = await accountRow(firstOrg, 'azure', 'First Blob');
  firstGeneric = await accountRow(firstOrg, 'genericS3', 'First MinIO');
  const firstAws = await accountRow(firstOrg, 'aws', 'First S3');
  firstWasabi = await accountRow(firstOrg, 'wasabi', 'First Vault');

  // Acme, last month: 2 GiB AWS → Wasabi by the Owner, 1 GiB Wasabi → AWS by the member.
  await batchRow({
    organizationId: acme,
    userId: owner.principal.userId,
    source: acmeAws,
    destination: acmeWasabi,
    bytes: 2 * GiB,
    at: lastMonth,
  });
  await batchRow({
    organizationId: acme,
    userId: member.principal.userId,
    source: acmeWasabi,
    destination: acmeAws,
    bytes: GiB,
    at: new Date(lastMonth.getTime() + 3600_000),
  });
  // Two months ago, and one whose source account was removed since: in no month total.
  await batchRow({
    organizationId: acme,
    userId: owner.principal.userId,
    source: acmeAws,
    destination: acmeWasabi,
    bytes: 5 * GiB,
    at: longAgo,
  });
  await batchRow({
    organizationId: acme,
    userId: owner.principal.userId,
    source: null,
    destination: acmeWasabi,
    bytes: MiB,
    at: new Date(longAgo.getTime() - 3600_000),
    finishedAt: null,
  });
  // Uploads: browser 100 bytes last month (7 long ago), agent 50 uploaded last month (999 downloaded: not counted).
  await sql(
    `insert into upload_reports (organization_id, user_id, cloud_account_id, bucket_name, name, size, duration_ms, created_at)
     values ($1, $2, $3, 'b', 'a.txt', 100, 5, $4), ($1, $2, $3, 'b', 'old.txt', 7, 5, $5)`,
    [acme, owner.principal.userId, acmeAws, lastMonth.toISOString(), longAgo.toISOString()],
  );
  const [device] = await sql<{ id: string }>(
    `insert into agent_devices (organization_id, user_id, name, platform, version, token_hash)
     values ($1, $2, 'laptop', 'linux', '1.0.0', 'hash-1') returning id`,
    [acme, member.principal.userId],
  );
  await sql(
    `insert into agent_transfers (organization_id, user_id, device_id, transfer_id, direction, cloud_account_id,
       bucket, files_count, size, cost, is_directory, created_at)
     values ($1, $2, $3, gen_random_uuid(), 'upload', $4, 'b', 1, 50, 0, false, $5),
            ($1, $2, $3, gen_random_uuid(), 'download', $4, 'b', 1, 999, 0, false, $5)`,
    [acme, member.principal.userId, device?.id, acmeAws, lastMonth.toISOString()],
  );
  // Billed cost read by analytics for last month: 12.50 USD in the report analytics sums; a second current
  // report of the same bill with fewer line items is the one analytics does not choose.
  for (const [report, lineItems, costNano] of [
    ['daily', 40, 12_500_000_000n],
    ['hourly', 10, 99_000_000_000n],
  ] as const) {
    const [period] = await sql<{ id: string }>(
      `insert into analytics_report_periods (organization_id, cloud_account_id, report, period, layout, version,
         manifest_key, current, line_items, cost_nano)
       values ($1, $2, $3, $4, 'cur2', 'v1', 'm', true, $5, $6) returning id`,
      [acme, acmeAws, report, lastMonthKey, lineItems, costNano.toString()],
    );
    await sql(
      `insert into analytics_monthly_costs (organization_id, cloud_account_id, period_id, month, usage_account_id,
         line_item_type, product_code, usage_type, operation, region, resource_id, cost_nano, usage_amount,
         line_items, last_day)
       values ($1, $2, $3, $4, '1', 'Usage', 'AmazonS3', 'TimedStorage', 'Put', 'us-east-1', '', $5, 1, $6, $7)`,
      [acme, acmeAws, period?.id, lastMonthKey, costNano.toString(), lineItems, `${lastMonthKey}-28`],
    );
  }
  // First Light, last month: 4 GiB Azure → AWS; and 1 GiB Generic S3 → Wasabi on 9 March 2026 at 22:30 in New
  // York (02:30 UTC on the 10th).
  await batchRow({
    organizationId: firstOrg,
    userId: first.principal.userId,
    source: firstAzure,
    destination: firstAws,
    bytes: 4 * GiB,
    at: new Date(lastMonth.getTime() + 7200_000),
  });
  await batchRow({
    organizationId: firstOrg,
    userId: first.principal.userId,
    source: firstGeneric,
    destination: firstWasabi,
    bytes: GiB,
    at: new Date('2026-03-10T02:30:00Z'),
    sourceBucket: 'march',
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
});

const ADMIN_CALLS: Array<[Method, string, unknown?]> = [
  ['GET', '/api/admin/accounts'],
  ['GET', '/api/admin/accounts?format=csv'],
  ['GET', '/api/admin/accounts/options'],
  ['POST', '/api/admin/accounts', { account_name: 'Sneaky' }],
  ['GET', '/api/admin/users'],
  ['GET', '/api/admin/users?format=csv'],
  [
    'POST',
    '/api/admin/users',
    {
      first_name: 'A',
      last_name: 'B',
      email: 'sneak@example.com',
      organization_id: '00000000-0000-4000-8000-000000000000',
    },
  ],
  ['PUT', '/api/admin/users/00000000-0000-4000-8000-000000000000/active', { active: false }],
  ['GET', '/api/admin/usage/filters'],
  ['GET', '/api/admin/usage/totals'],
  ['GET', '/api/admin/usage/totals?format=csv'],
  ['GET', '/api/admin/usage/history'],
  ['GET', '/api/admin/usage/history?format=csv'],
  ['GET', '/api/admin/transfer-costs'],
  ['GET', '/api/admin/transfer-costs?format=csv'],
];

describe('instance operators (real API, embedded PostgreSQL)', () => {
  it('makes the first account of a fresh install an operator, and nobody after it but OPERATOR_EMAILS', async () => {
    const me = async (who: Member) =>
      ((await call('GET', '/api/users/_me', who)).body as { operator: boolean }).operator;
    expect(await me(first)).toBe(true);
    expect(await me(owner)).toBe(false);
    expect(await me(member)).toBe(false);
    expect(await me(boss)).toBe(true);
    expect(await sql('select user_id, source from instance_operators')).toEqual([
      { user_id: first.principal.userId, source: 'first-account' },
    ]);
  });

  it('records one first account when two sign up at once on a fresh install', async () => {
    const fresh = await startTestServer();
    try {
      await Promise.all(
        ['one', 'two', 'three'].map((name) =>
          fresh.services.identity.signup(
            { email: `${name}@race.example.com`, password: PASSWORD, first_name: name, last_name: 'Race' },
            { ip: '127.0.0.1' },
          ),
        ),
      );
      const { rows } = await fresh.db.pool.query<{ email: string }>(
        'select u.email from instance_operators io join users u on u.id = io.user_id',
      );
      expect(rows).toHaveLength(1);
      expect(['one@race.example.com', 'two@race.example.com', 'three@race.example.com']).toContain(
        rows[0]?.email,
      );
      expect((await fresh.db.pool.query('select 1 from users')).rowCount).toBe(3);
    } finally {
      await fresh.stop();
    }
  });

  it('refuses every admin call to an Owner and a User (403) and to a signed-out caller (401)', async () => {
    for (const who of [owner, member]) {
      for (const [method, url, body] of ADMIN_CALLS) {
        const res = await call(method, url, who, body);
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(messageOf(res), `${method} ${url}`).toBe(adminMessages.operatorsOnly);
      }
    }
    for (const [method, url, body] of ADMIN_CALLS) {
      const res = await server.app.inject({ method, url, payload: body as object | undefined });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    // Nothing was created, invited or changed by the refused calls.
    expect(await sql(`select 1 from organizations where name = 'Sneaky'`)).toEqual([]);
    expect(await sql(`select 1 from invitations where email = 'sneak@example.com'`)).toEqual([]);
  });

  it('offers no call that makes someone an operator: an Owner cannot grant it', async () => {
    const docs = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    const paths = Object.keys((docs.json() as { paths: Record<string, unknown> }).paths);
    expect(paths.filter((p) => /operator/i.test(p))).toEqual([]);
    // The Owner makes their member Admin, the highest role they can give: still no operator.
    const res = await call('PUT', `/api/users/${member.principal.userId}`, owner, { role_id: ROLE_ID.Admin });
    expect(res.status, res.raw).toBe(200);
    expect(((await call('GET', '/api/users/_me', member)).body as { operator: boolean }).operator).toBe(
      false,
    );
    expect((await call('GET', '/api/admin/accounts', member)).status).toBe(403);
    await call('PUT', `/api/users/${member.principal.userId}`, owner, { role_id: ROLE_ID.User });
  });

  it('lets an address of OPERATOR_EMAILS read the reports', async () => {
    const res = await call('GET', '/api/admin/accounts', boss);
    expect(res.status).toBe(200);
  });
});

describe('accounts and users (real data)', () => {
  it("lists every organisation with last month's usage and cost, creation date, status and user count", async () => {
    const res = await call('GET', '/api/admin/accounts', first);
    expect(res.status, res.raw).toBe(200);
    const answer = res.body as AdminAccountsAnswer;
    expect(answer.month).toBe(lastMonthKey);
    expect(answer.accounts.map((a) => a.accountName)).toEqual(['Acme Films', 'Boss & Co', 'First Light']);
    const acme = answer.accounts[0];
    // 2 GiB + 1 GiB copied, 100 bytes uploaded in the browser, 50 by the agent.
    expect(acme).toMatchObject({
      id: owner.principal.organizationId,
      totalUsage: 3 * GiB + 150,
      // AWS source: 2 GiB × (0.15 egress + 0.15 transfer) = 0.60; Wasabi source: 1 GiB × (0 + 0.15); billed 12.50.
      totalCost: 13.25,
      status: 'Active',
      users: 2,
      description: null,
    });
    // Azure source: 4 GiB × (0.087 + 0.15) = 0.948.
    expect(answer.accounts[2]).toMatchObject({ totalUsage: 4 * GiB, totalCost: 0.948, users: 1 });
    expect(answer.accounts[1]).toMatchObject({ totalUsage: 0, totalCost: 0, users: 1 });
    const [created] = await sql<{ created_at: Date }>('select created_at from organizations where id = $1', [
      owner.principal.organizationId,
    ]);
    expect(acme?.creationDate).toBe(created?.created_at.toISOString());
  });

  it('pages by name over the real total and searches names with % and _ taken literally', async () => {
    const page2 = (await call('GET', '/api/admin/accounts?page=2&pagesize=2', first))
      .body as AdminAccountsAnswer;
    expect(page2).toMatchObject({ total: 3, page: 2, pagesize: 2 });
    expect(page2.accounts.map((a) => a.accountName)).toEqual(['First Light']);
    const far = (await call('GET', '/api/admin/accounts?page=1000000', first)).body as AdminAccountsAnswer;
    expect(far).toMatchObject({ total: 3, accounts: [] });
    const found = (await call('GET', '/api/admin/accounts?search=ACME', first)).body as AdminAccountsAnswer;
    expect(found.accounts.map((a) => a.accountName)).toEqual(['Acme Films']);
    expect(found.total).toBe(1);
    const literal = (await call('GET', '/api/admin/accounts?search=%25', first)).body as AdminAccountsAnswer;
    expect(literal.total).toBe(0);
    const amp = (await call('GET', '/api/admin/accounts?search=%26', first)).body as AdminAccountsAnswer;
    expect(amp.accounts.map((a) => a.accountName)).toEqual(['Boss & Co']);
  });

  it('downloads the account list as the table shows it, every page, in the viewer’s zone', async () => {
    const rows = await allPages<AdminAccountsAnswer['accounts'][number]>(
      '/api/admin/accounts',
      'accounts',
      1,
    );
    expect(rows).toHaveLength(3);
    const csv = await csvOf('/api/admin/accounts?format=csv&tz=Asia/Tokyo&pagesize=1');
    expect(csv).toBe(csvOfRows(ACCOUNT_COLUMNS, rows, 'Asia/Tokyo'));
    expect(csv.split('\r\n')[1]).toBe(
      `Acme Films,3 GB,$13.25,${ACCOUNT_COLUMNS[3]?.cell(rows[0] as never, 'Asia/Tokyo')},Active,2`,
    );
  });

  it('adds an account (no members yet) and refuses a second one of the same name in any case', async () => {
    const res = await call('POST', '/api/admin/accounts', first, {
      account_name: '  Zephyr Labs ',
      description: 'Animation studio',
    });
    expect(res.status, res.raw).toBe(201);
    const { account } = res.body as { account: { id: string; name: string } };
    expect(res.body).toMatchObject({
      message: adminMessages.accountCreated,
      account: { name: 'Zephyr Labs' },
    });
    const [row] = await sql('select name, description, user_type, is_cbs from organizations where id = $1', [
      account.id,
    ]);
    // Sign-up's defaults: every provider may be added, not a CBS organisation.
    expect(row).toEqual({
      name: 'Zephyr Labs',
      description: 'Animation studio',
      user_type: 4,
      is_cbs: false,
    });
    const listed = (await call('GET', '/api/admin/accounts?search=zephyr', first))
      .body as AdminAccountsAnswer;
    expect(listed.accounts[0]).toMatchObject({
      users: 0,
      status: 'No users yet',
      totalUsage: 0,
      description: 'Animation studio',
    });
    // Its trail starts with the operator's act.
    expect(
      await sql('select entity, type, resource, author_user_id from audits where organization_id = $1', [
        account.id,
      ]),
    ).toEqual([
      {
        entity: 'Organization',
        type: 'Added',
        resource: 'Zephyr Labs',
        author_user_id: first.principal.userId,
      },
    ]);

    // The same name in another case, or with more white space inside, is the same name.
    for (const again of ['ZEPHYR labs', 'Zephyr  Labs', 'zephyr \t labs']) {
      const twice = await call('POST', '/api/admin/accounts', first, { account_name: again });
      expect({ again, status: twice.status, body: twice.body }).toMatchObject({
        status: 400,
        body: {
          message: adminMessages.accountExists,
          errors: { account_name: [adminMessages.accountExists] },
        },
      });
    }
    // An organisation named with two spaces at sign-up is found by its name as read.
    await sql(`update organizations set name = 'Acme  Films ' where name = 'Acme Films'`);
    const acme = await call('POST', '/api/admin/accounts', first, { account_name: 'acme films' });
    expect(acme.status).toBe(400);
    await sql(`update organizations set name = 'Acme Films' where name = 'Acme  Films '`);
    const blank = await call('POST', '/api/admin/accounts', first, { account_name: '   ' });
    expect(blank.status).toBe(400);
    expect(messageOf(blank)).toBe(adminMessages.accountNameRequired);
    const options = (await call('GET', '/api/admin/accounts/options', first)).body as { name: string }[];
    expect(options.map((o) => o.name)).toEqual(['Acme Films', 'Boss & Co', 'First Light', 'Zephyr Labs']);
  });

  it('invites the first member of a new account as its Owner, by a real mail, and the next ones as Users', async () => {
    const { account } = (await call('POST', '/api/admin/accounts', first, { account_name: 'Nimbus' }))
      .body as {
      account: { id: string };
    };
    const email = `nina.${Date.now()}@example.com`;
    const res = await call('POST', '/api/admin/users', first, {
      first_name: 'Nina',
      last_name: 'Nimbus',
      email: email.toUpperCase(),
      organization_id: account.id,
    });
    expect(res.status, res.raw).toBe(200);
    expect(messageOf(res)).toBe(adminMessages.userInvited(email));
    const mail = await server.mail.waitFor(email, 'You are invited to Cumulo');
    const link = /\/signup\?invite_token=([^\s"<&]+)/.exec(mail.body)?.[1];
    if (!link) throw new Error(`no invite link in ${mail.body}`);
    const signup = await server.app.inject({
      method: 'POST',
      url: '/api/users',
      payload: {
        email,
        password: PASSWORD,
        first_name: 'Nina',
        last_name: 'Nimbus',
        invite_token: decodeURIComponent(link),
      },
    });
    expect(signup.statusCode, signup.body).toBe(201);
    const nina = await login(email);
    const me = await callApi(server, 'GET', '/api/users/_me', nina);
    expect(me.body).toMatchObject({
      role: { id: ROLE_ID.Owner, title: 'Owner' },
      organization: { id: account.id, name: 'Nimbus' },
      operator: false,
    });

    const second = `sam.${Date.now()}@example.com`;
    expect(
      (
        await call('POST', '/api/admin/users', first, {
          first_name: 'Sam',
          last_name: 'S',
          email: second,
          organization_id: account.id,
        })
      ).status,
    ).toBe(200);
    expect(await sql('select role_id, invited_by from invitations where email = $1', [second])).toEqual([
      { role_id: ROLE_ID.User, invited_by: first.principal.userId },
    ]);

    const taken = await call('POST', '/api/admin/users', first, {
      first_name: 'Nina',
      last_name: 'Again',
      email,
      organization_id: owner.principal.organizationId,
    });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({
      message: memberMessages.emailTaken,
      errors: { email: [memberMessages.emailTaken] },
    });
    const unknown = await call('POST', '/api/admin/users', first, {
      first_name: 'X',
      last_name: 'Y',
      email: 'nobody@example.com',
      organization_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      message: adminMessages.unknownAccount,
      errors: { organization_id: [adminMessages.unknownAccount] },
    });
    const noAccount = await call('POST', '/api/admin/users', first, {
      first_name: 'X',
      last_name: 'Y',
      email: 'x@example.com',
    });
    expect(noAccount.status).toBe(400);
  });

  it('lists users newest first with their usage of all time, organisation and operator flag', async () => {
    const res = await call('GET', `/api/admin/users?account=${owner.principal.organizationId}`, first);
    expect(res.status, res.raw).toBe(200);
    const answer = res.body as AdminUsersAnswer;
    expect(answer.total).toBe(2);
    expect(answer.users.map((u) => u.email)).toEqual([member.email, owner.email]);
    // The Owner: 2 + 5 GiB + 1 MiB copied, 107 bytes uploaded; the member: 1 GiB copied and 50 bytes by the agent.
    expect(answer.users[1]).toMatchObject({
      userName: 'owner Test',
      totalUsage: 7 * GiB + MiB + 107,
      accountName: 'Acme Films',
      active: true,
      operator: false,
    });
    expect(answer.users[0]).toMatchObject({ totalUsage: GiB + 50 });
    const ops = (await call('GET', '/api/admin/users?search=BOSS', first)).body as AdminUsersAnswer;
    expect(ops.users).toEqual([
      expect.objectContaining({ email: BOSS, operator: true, accountName: 'Boss & Co' }),
    ]);

    const everyone = await allPages<AdminUsersAnswer['users'][number]>('/api/admin/users', 'users', 2);
    expect(everyone.length).toBe((await sql('select 1 from users')).length);
    expect(everyone.find((u) => u.id === first.principal.userId)?.operator).toBe(true);
    const csv = await csvOf('/api/admin/users?format=csv&tz=America/Los_Angeles');
    expect(csv).toBe(csvOfRows(USER_COLUMNS, everyone, 'America/Los_Angeles'));
  });

  it('deactivates a user of another organisation, ending their sessions, and activates them again', async () => {
    const signedIn = await signedInMember(server, 'temp', {
      principal: owner.principal,
      roleId: ROLE_ID.User,
    });
    const off = await call('PUT', `/api/admin/users/${signedIn.principal.userId}/active`, first, {
      active: false,
    });
    expect(off.status, off.raw).toBe(200);
    expect(messageOf(off)).toBe(memberMessages.deactivated);
    expect((await call('GET', '/api/users/_me', signedIn)).status).toBe(401);
    expect(
      await sql('select count(*)::int as live from sessions where user_id = $1 and revoked_at is null', [
        signedIn.principal.userId,
      ]),
    ).toEqual([{ live: 0 }]);
    expect(
      await sql(
        `select author_user_id, changes from audits where organization_id = $1 and resource = $2 and entity = 'User' and type = 'Modified'`,
        [owner.principal.organizationId, signedIn.email],
      ),
    ).toEqual([
      {
        author_user_id: first.principal.userId,
        changes: [{ property: 'active', initial: 'true', value: 'false' }],
      },
    ]);
    const on = await call('PUT', `/api/admin/users/${signedIn.principal.userId}/active`, first, {
      active: true,
    });
    expect(messageOf(on)).toBe(memberMessages.activated);
    expect((await login(signedIn.email)).length).toBeGreaterThan(0);

    const self = await call('PUT', `/api/admin/users/${first.principal.userId}/active`, first, {
      active: false,
    });
    expect(self.status).toBe(403);
    expect(messageOf(self)).toBe(memberMessages.notYourself);
    const nobody = await call('PUT', '/api/admin/users/00000000-0000-4000-8000-000000000000/active', first, {
      active: false,
    });
    expect(nobody.status).toBe(404);
  });
});

describe('usage and transfer costs (real data)', () => {
  const acmeUrl = () => `account=${owner.principal.organizationId}`;

  it('offers the organisation, its users and the directions its transfers took', async () => {
    const res = await call('GET', `/api/admin/usage/filters?${acmeUrl()}`, first);
    expect(res.status, res.raw).toBe(200);
    const filters = res.body as AdminUsageFiltersAnswer;
    expect(filters.account).toEqual({ id: owner.principal.organizationId, name: 'Acme Films' });
    expect(filters.users.map((u) => u.email).sort()).toEqual(
      (
        await sql<{ email: string }>('select email from users where organization_id = $1', [
          owner.principal.organizationId,
        ])
      )
        .map((u) => u.email)
        .sort(),
    );
    // The batch whose source account was removed has no direction to check.
    expect(filters.directions).toEqual([
      { key: 'aws:wasabi', label: 'AWS to Wasabi', source: 'aws', destination: 'wasabi' },
      { key: 'wasabi:aws', label: 'Wasabi to AWS', source: 'wasabi', destination: 'aws' },
    ]);
    const all = (await call('GET', '/api/admin/usage/filters', first)).body as AdminUsageFiltersAnswer;
    expect(all.account).toBeNull();
    expect(all.directions.map((d) => d.key)).toEqual([
      'aws:wasabi',
      'azure:aws',
      'genericS3:wasabi',
      'wasabi:aws',
    ]);
    const unknown = await call(
      'GET',
      '/api/admin/usage/filters?account=00000000-0000-4000-8000-000000000000',
      first,
    );
    expect(unknown.status).toBe(404);
    expect(messageOf(unknown)).toBe(adminMessages.unknownAccount);
  });

  it('totals one row per direction, removed accounts under Unknown, filtered by user, direction and period', async () => {
    const totals = async (query: string) => {
      const res = await call('GET', `/api/admin/usage/totals?${query}`, first);
      expect(res.status, res.raw).toBe(200);
      return (res.body as { totals: AdminUsageTotalRow[] }).totals;
    };
    expect(await totals(acmeUrl())).toEqual([
      { direction: 'aws:wasabi', label: 'AWS to Wasabi', totalTransfer: 7 * GiB, totalCost: 2.1 },
      // Priced as an S3-compatible source (AWS egress): 1 MiB × 0.30 per GB, each part rounded to 5 decimals.
      { direction: 'unknown:wasabi', label: 'Unknown to Wasabi', totalTransfer: MiB, totalCost: 0.0003 },
      { direction: 'wasabi:aws', label: 'Wasabi to AWS', totalTransfer: GiB, totalCost: 0.15 },
    ]);
    expect(await totals(`${acmeUrl()}&user=${member.principal.userId}`)).toEqual([
      { direction: 'wasabi:aws', label: 'Wasabi to AWS', totalTransfer: GiB, totalCost: 0.15 },
    ]);
    expect((await totals(`${acmeUrl()}&directions=wasabi:aws,azure:aws`)).map((t) => t.direction)).toEqual([
      'wasabi:aws',
    ]);
    const day = lastMonth.toISOString().slice(0, 10);
    expect(await totals(`${acmeUrl()}&start=${day}&end=${day}`)).toEqual([
      { direction: 'aws:wasabi', label: 'AWS to Wasabi', totalTransfer: 2 * GiB, totalCost: 0.6 },
      { direction: 'wasabi:aws', label: 'Wasabi to AWS', totalTransfer: GiB, totalCost: 0.15 },
    ]);
    // 02:30 UTC on 10 March is still the 9th in New York: whole days of the viewer's zone, both ends included.
    const march9 = 'start=2026-03-09&end=2026-03-09';
    expect((await totals(`${march9}&tz=America/New_York`)).map((t) => t.label)).toEqual([
      'Generic S3 to Wasabi',
    ]);
    expect(await totals(march9)).toEqual([]);
    expect((await totals('start=2026-03-10&end=2026-03-10')).map((t) => t.totalTransfer)).toEqual([GiB]);
    // The widest days a date picker can send bound nothing, in any zone.
    for (const tz of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      expect(await totals(`${acmeUrl()}&start=0000-01-01&end=9999-12-31&tz=${tz}`)).toEqual(
        await totals(acmeUrl()),
      );
      expect(await totals(`${acmeUrl()}&start=0001-01-01&end=0099-12-31&tz=${tz}`)).toEqual([]);
    }

    const csv = await csvOf(`/api/admin/usage/totals?${acmeUrl()}&format=csv`);
    expect(csv).toBe(csvOfRows(USAGE_TOTAL_COLUMNS, await totals(acmeUrl()), 'UTC'));
  });

  it('lists the transfer history newest first, paged over the real total, dates as stored', async () => {
    const page1 = (await call('GET', `/api/admin/usage/history?${acmeUrl()}&pagesize=3`, first))
      .body as AdminUsageHistoryAnswer;
    expect(page1).toMatchObject({ total: 4, page: 1, pagesize: 3 });
    expect(page1.rows.map((r) => r.transferSize)).toEqual([GiB, 2 * GiB, 5 * GiB]);
    expect(page1.rows[0]).toMatchObject({
      user: 'member Test',
      direction: 'wasabi:aws',
      label: 'Wasabi to AWS',
      sourceBucket: 'src-bucket',
      destinationBucket: 'dst-bucket',
      totalObject: 3,
      initiationDate: new Date(lastMonth.getTime() + 3600_000).toISOString(),
      completionDate: new Date(lastMonth.getTime() + 3600_000 + 90_000).toISOString(),
    });
    const page2 = (await call('GET', `/api/admin/usage/history?${acmeUrl()}&pagesize=3&page=2`, first))
      .body as AdminUsageHistoryAnswer;
    expect(page2.rows).toEqual([
      expect.objectContaining({ label: 'Unknown to Wasabi', completionDate: null }),
    ]);
    const far = (await call('GET', `/api/admin/usage/history?page=1000000&pagesize=100`, first))
      .body as AdminUsageHistoryAnswer;
    expect(far.rows).toEqual([]);

    const rows = await allPages<AdminUsageHistoryAnswer['rows'][number]>(
      '/api/admin/usage/history',
      'rows',
      2,
    );
    const csv = await csvOf('/api/admin/usage/history?format=csv&tz=Europe/Paris');
    expect(csv).toBe(csvOfRows(TRANSFER_HISTORY_COLUMNS, rows, 'Europe/Paris'));
    // Paris is UTC+1 in early March.
    expect(csv).toContain(
      '\r\nfirst Test,Generic S3 to Wasabi,march,dst-bucket,1 GB,3,03/10/2026 - 03:30,03/10/2026 - 03:31\r\n',
    );
  });

  it('groups transfer costs per direction and pair of accounts, searched over the direction (20 characters, any case)', async () => {
    const costs = async (query: string) => {
      const res = await call('GET', `/api/admin/transfer-costs?${query}`, first);
      expect(res.status, res.raw).toBe(200);
      return res.body as AdminTransferCostsAnswer;
    };
    const acme = await costs(acmeUrl());
    expect(acme.total).toBe(3);
    expect(acme.rows[0]).toEqual({
      direction: 'aws:wasabi',
      label: 'AWS to Wasabi',
      source: 'Acme S3',
      destination: 'Acme Vault',
      transferSize: 7 * GiB,
      gbCost: 0.3,
      totalCost: 2.1,
    });
    expect(acme.rows[1]).toMatchObject({
      label: 'Unknown to Wasabi',
      source: 'Unknown',
      destination: 'Acme Vault',
    });
    // 'Generic S3 to Wasabi' is 20 characters: what follows them is cut, and the case does not matter.
    expect((await costs('search=GENERIC%20s3%20TO%20wasabiXYZ')).rows).toEqual([
      {
        direction: 'genericS3:wasabi',
        label: 'Generic S3 to Wasabi',
        source: 'First MinIO',
        destination: 'First Vault',
        transferSize: GiB,
        gbCost: 0.3,
        totalCost: 0.3,
      },
    ]);
    expect((await costs('search=wasabi%20to%20awsXYZ')).total).toBe(0);
    expect((await costs('search=AZURE')).rows.map((r) => r.label)).toEqual(['Azure to AWS']);
    expect((await costs('search=_')).total).toBe(0);
    const paged = await costs('pagesize=2&page=2');
    expect(paged.total).toBe(5);
    expect(paged.rows).toHaveLength(2);

    const rows = await allPages<AdminTransferCostsAnswer['rows'][number]>(
      '/api/admin/transfer-costs',
      'rows',
      2,
    );
    expect(await csvOf('/api/admin/transfer-costs?format=csv')).toBe(
      csvOfRows(TRANSFER_COST_COLUMNS, rows, 'UTC'),
    );
    expect(await csvOf('/api/admin/transfer-costs?format=csv&search=azure%20to')).toBe(
      csvOfRows(
        TRANSFER_COST_COLUMNS,
        rows.filter((r) => /azure to/i.test(r.label)),
        'UTC',
      ),
    );
  });

  it('streams files read two rows at a time exactly as one read: every row once, in order', async () => {
    const small = new AdminService(
      new InstanceOperatorsRepo(server.db.orm, []),
      new AdminRepo(server.db.orm, []),
      new AdminUsageRepo(server.db.orm),
      server.services.members,
      () => new Date(),
      2,
    );
    const text = async (lines: AsyncIterable<string>) => {
      let all = '';
      for await (const line of lines) all += line;
      return all;
    };
    const filter = { tz: 'Europe/Paris' };
    const history = await allPages<AdminUsageHistoryAnswer['rows'][number]>(
      '/api/admin/usage/history',
      'rows',
      100,
    );
    expect(history.length).toBeGreaterThan(4);
    expect(await text(await small.usageHistoryCsv(first.principal, filter))).toBe(
      csvOfRows(TRANSFER_HISTORY_COLUMNS, history, 'Europe/Paris'),
    );
    const accounts = await allPages<AdminAccountsAnswer['accounts'][number]>(
      '/api/admin/accounts',
      'accounts',
      100,
    );
    expect(
      await text(
        await small.accountsCsv(first.principal, { ...filter, page: 1, pagesize: 10, format: 'csv' }),
      ),
    ).toBe(csvOfRows(ACCOUNT_COLUMNS, accounts, 'Europe/Paris'));
    const costs = await allPages<AdminTransferCostsAnswer['rows'][number]>(
      '/api/admin/transfer-costs',
      'rows',
      100,
    );
    expect(await text(await small.transferCostsCsv(first.principal, filter))).toBe(
      csvOfRows(TRANSFER_COST_COLUMNS, costs, 'Europe/Paris'),
    );
  });

  it('answers bad input with 400, never 500', async () => {
    const bad = [
      '/api/admin/accounts?search=a%00b',
      '/api/admin/accounts?page=0',
      '/api/admin/accounts?page=99999999999999999999',
      '/api/admin/accounts?pagesize=1000',
      '/api/admin/accounts?tz=Mars/Olympus',
      '/api/admin/users?account=not-a-uuid',
      '/api/admin/users?search=%00',
      '/api/admin/usage/totals?start=2026-02-30',
      '/api/admin/usage/totals?start=yesterday',
      '/api/admin/usage/totals?start=2026-03-10&end=2026-03-09',
      '/api/admin/usage/totals?directions=aws:nowhere',
      '/api/admin/usage/totals?directions=aws:wasabi:azure',
      '/api/admin/usage/history?user=1',
      '/api/admin/usage/history?page=-1',
      '/api/admin/transfer-costs?search=%00',
      '/api/admin/transfer-costs?format=xml',
      '/api/admin/usage/filters?account=%00',
    ];
    for (const url of bad) {
      const res = await call('GET', url, first);
      expect(res.status, `${url}: ${res.raw}`).toBe(400);
      expect(typeof messageOf(res)).toBe('string');
    }
    const surrogate = await server.app.inject({
      method: 'POST',
      url: '/api/admin/accounts',
      headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' },
      payload: '{"account_name":"bad \\ud800 name"}',
    });
    expect(surrogate.statusCode).toBe(400);
    const notBool = await call('PUT', `/api/admin/users/${member.principal.userId}/active`, first, {
      active: 'no',
    });
    expect(notBool.status).toBe(400);
  });
});

describe('a real transfer in the reports (worker role, s3rver as aws and as wasabi)', () => {
  it('shows a copied transfer with its size and cost in the history, totals and the user’s usage', async () => {
    const awsId = await connectS3rverAccount(server, first.token, 'Lab AWS');
    const wasabiId = await connectAccount(server, first.token, {
      cloudType: 2,
      name: 'Lab Wasabi',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    const s3 = s3rverStore(s3rver.endpoint);
    try {
      await s3.createBucket('report-src');
      await s3.createBucket('report-dst');
      const body = Buffer.alloc(3 * MiB, 7);
      await s3.write('report-src', 'clip.bin', body, { size: body.length });
      await s3.write('report-src', 'note.txt', Buffer.from('hello'), { size: 5 });
      await sql('update organizations set confirmed_c2c = true where id = $1', [
        first.principal.organizationId,
      ]);
      const started = await call('POST', '/api/transfer/transfer', first, {
        sourceCloudAccountId: awsId,
        sourceBucket: 'report-src',
        destinationCloudAccountId: wasabiId,
        destinationBucket: 'report-dst',
      });
      expect(started.status, started.raw).toBe(200);
      const id = (started.body as { batch: { id: string } }).batch.id;
      const deadline = Date.now() + 60_000;
      let batch = await batchOf(id, first.token);
      while (batch?.transferStatus !== BATCH_STATUS.completed && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        batch = await batchOf(id, first.token);
      }
      expect(batch?.transferStatus).toBe(BATCH_STATUS.completed);

      const firstOrg = `account=${first.principal.organizationId}`;
      const history = (await call('GET', `/api/admin/usage/history?${firstOrg}&directions=aws:wasabi`, first))
        .body as AdminUsageHistoryAnswer;
      expect(history.rows).toEqual([
        expect.objectContaining({
          id,
          user: 'first Test',
          label: 'AWS to Wasabi',
          sourceBucket: 'report-src',
          destinationBucket: 'report-dst',
          transferSize: 3 * MiB + 5,
          totalObject: 2,
        }),
      ]);
      expect(history.rows[0]?.completionDate).not.toBeNull();
      const totals = (await call('GET', `/api/admin/usage/totals?${firstOrg}&directions=aws:wasabi`, first))
        .body as {
        totals: AdminUsageTotalRow[];
      };
      // (3 MiB + 5 bytes) / 1 GiB × 0.15, egress and transfer charge each rounded to 5 decimals: 0.00044 × 2.
      expect(totals.totals).toEqual([
        { direction: 'aws:wasabi', label: 'AWS to Wasabi', totalTransfer: 3 * MiB + 5, totalCost: 0.00088 },
      ]);
      const users = (await call('GET', '/api/admin/users?search=first', first)).body as AdminUsersAnswer;
      expect(users.users[0]).toMatchObject({ id: first.principal.userId, totalUsage: 5 * GiB + 3 * MiB + 5 });
    } finally {
      await s3.close();
    }
  });

  it('keeps a past transfer’s direction and price when its source account is removed', async () => {
    const removing = await signedInMember(server, 'removing');
    const org = removing.principal.organizationId;
    const azure = await accountRow(org, 'azure', 'Old Blob');
    const wasabi = await accountRow(org, 'wasabi', 'Cold Vault');
    await batchRow({
      organizationId: org,
      userId: removing.principal.userId,
      source: azure,
      destination: wasabi,
      bytes: GiB,
      at: new Date('2026-03-10T12:00:00Z'),
    });
    const totals = async () =>
      (
        (await call('GET', `/api/admin/usage/totals?account=${org}`, first)).body as {
          totals: AdminUsageTotalRow[];
        }
      ).totals;
    const costs = async () =>
      (
        (await call('GET', `/api/admin/transfer-costs?account=${org}`, first))
          .body as AdminTransferCostsAnswer
      ).rows;
    const totalsBefore = await totals();
    const costsBefore = await costs();
    expect(totalsBefore.map((t) => t.direction)).toEqual(['azure:wasabi']);
    expect(costsBefore).toEqual([expect.objectContaining({ direction: 'azure:wasabi', source: 'Old Blob' })]);
    // Removing the account sets the batch's account id to null, as removing it on Cloud Providers does. Azure's
    // egress still prices it (before, a removed source was priced as an S3-compatible one, 'Unknown to Wasabi').
    await sql('delete from cloud_accounts where id = $1', [azure]);
    expect(await totals()).toEqual(totalsBefore);
    expect(await costs()).toEqual([{ ...costsBefore[0], source: 'Unknown' }]);
  });
});
