import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AGENT_KEY_HEADER, agentMessages, agentStatusAnswer, type AgentTransfer } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startRestartableS3rver, type RestartableS3rver } from '@cumulo/storage/testing';
import { pairingMessages } from './agent.ts';
import { startStandInServer, type StandInServer } from './testing/stand-in-server.ts';
import { StateStore } from './transfers/transfer-state.ts';

const MiB = 1024 * 1024;
const here = path.dirname(fileURLToPath(import.meta.url));
const main = path.join(here, 'main.ts');
const ORIGIN = 'http://cumulo.test';
const PORT = 47_411;
const BUCKET = 'agent-bucket';
const ACCOUNT = randomUUID();

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { message?: string } & Record<string, unknown>;
}

/** A request to the agent with exactly the headers given (Host included), as any page or program could send. */
function call(
  method: string,
  route: string,
  options: { host?: string; origin?: string; key?: string; body?: unknown; raw?: string; port?: number } = {},
): Promise<Answer> {
  const port = options.port ?? PORT;
  return new Promise((resolve, reject) => {
    const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const headers: Record<string, string> = { host: options.host ?? `127.0.0.1:${port}` };
    if (options.origin) headers.origin = options.origin;
    if (options.key) headers[AGENT_KEY_HEADER] = options.key;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const request = http.request({
      host: '127.0.0.1',
      port,
      method,
      path: route,
      headers,
      setHost: false,
    });
    request.once('error', reject);
    request.once('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text ? (JSON.parse(text) as Answer['body']) : {},
        }),
      );
    });
    request.end(payload);
  });
}

/** The real agent process (tsx on src/main.ts), its output collected. */
class AgentProcess {
  output = '';
  readonly exited: Promise<number | null>;
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }
  async waitFor(text: string, ms = 20_000) {
    const deadline = Date.now() + ms;
    while (!this.output.includes(text)) {
      if (Date.now() > deadline) throw new Error(`agent never printed "${text}":\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const agentArgs = (home: string, server: string, ...args: string[]) => [
  '--import',
  'tsx',
  main,
  ...args,
  '--home',
  home,
  '--server',
  server,
  '--origin',
  ORIGIN,
  ...(args.includes('--port') ? [] : ['--port', String(PORT)]),
];

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

describe('the transfer agent as a real process, with s3rver behind a stand-in for the Cumulo server', () => {
  let s3rver: RestartableS3rver;
  let store: S3ObjectStore;
  let standIn: StandInServer;
  let home: string;
  let tree: string;
  let outside: string;
  let agent: AgentProcess;
  let key = '';
  /** Part PUTs s3rver saw, and a gate holding part 3 and later of the big file while closed. */
  const partPuts: string[] = [];
  let gate: { open: Promise<void>; release: () => void } | null = null;
  /** Range GETs of the big object s3rver saw, and a gate holding the third and later while closed. */
  let bigGets = 0;
  let downloadGate: { open: Promise<void>; release: () => void } | null = null;
  const files: Record<string, Buffer> = {};

  const start = () => {
    agent = new AgentProcess(
      spawn(process.execPath, agentArgs(home, standIn.url, 'start'), {
        cwd: path.resolve(here, '..'),
        env: { ...process.env, NODE_OPTIONS: '' },
      }),
    );
    return until(
      'the heartbeat',
      async () => (await call('GET', '/heartbeat').catch(() => null))?.status === 200,
    );
  };
  /** Downloads `remotePath` of the bucket into the local folder `localPath`, as the page asks the agent. */
  const download = (remotePath: string, localPath: string) =>
    call('POST', '/download', {
      key,
      body: { remotePaths: [remotePath], cloud_account_id: ACCOUNT, bucket_name: BUCKET, localPath },
    });
  const connect = async () => {
    const answer = await call('POST', '/connect', { origin: ORIGIN, body: { ticket: standIn.ticket() } });
    expect(answer.status).toBe(200);
    key = (answer.body.data as { connectionKey: string }).connectionKey;
  };
  const transfers = async (): Promise<AgentTransfer[]> => {
    const answer = await call('GET', '/status', { key, origin: ORIGIN });
    expect(answer.status).toBe(200);
    return agentStatusAnswer.parse(answer.body).data.allTransfers;
  };
  const ended = (id: string) =>
    until(`transfer ${id} to end`, async () => {
      const found = (await transfers()).find((transfer) => transfer.transferID === id);
      return found?.endedAt ? found : null;
    });
  const objectBytes = async (objectKey: string) => {
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read(BUCKET, objectKey)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  beforeAll(async () => {
    s3rver = await startRestartableS3rver({
      hold: (request) => {
        if (request.method === 'PUT' && request.query.partNumber) {
          partPuts.push(`${String(request.query.uploadId)}#${String(request.query.partNumber)}`);
          return Number(request.query.partNumber) >= 3 && gate ? gate.open : undefined;
        }
        if (request.method === 'GET' && request.path.endsWith('/in/docs/big.bin')) {
          bigGets += 1;
          return bigGets > 2 && downloadGate ? downloadGate.open : undefined;
        }
        return undefined;
      },
    });
    store = new S3ObjectStore(
      {
        provider: 'aws',
        accessKeyId: S3RVER_KEY,
        secretAccessKey: S3RVER_KEY,
        region: 'us-east-1',
        endpoint: s3rver.endpoint,
      },
      { maxAttempts: 2 },
    );
    await store.createBucket(BUCKET);
    standIn = await startStandInServer(store, BUCKET);

    home = await mkdtemp(path.join(os.tmpdir(), 'cumulo-agent-home-'));
    tree = await mkdtemp(path.join(os.tmpdir(), 'cumulo-agent-tree-'));
    outside = path.join(tree, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'not for the page');
    const docs = path.join(tree, 'docs');
    mkdirSync(path.join(docs, 'sub'), { recursive: true });
    mkdirSync(path.join(docs, '.git'));
    files['a.txt'] = Buffer.from('hello agent\n');
    files['sub/b.bin'] = randomBytes(300 * 1024);
    files['sub/c.bin'] = randomBytes(5 * MiB);
    files['big.bin'] = randomBytes(25 * MiB + 12_345);
    for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(docs, name), bytes);
    writeFileSync(path.join(docs, '.env'), 'HIDDEN=1');
    writeFileSync(path.join(docs, '.git', 'config'), 'hidden');
    symlinkSync(outside, path.join(docs, 'escape'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(docs, 'secret-link.txt'));
    mkdirSync(path.join(tree, 'restore'));
    mkdirSync(path.join(tree, 'mixed'));
    for (const name of ['m1.txt', 'm2.txt', 'm3.txt'])
      writeFileSync(path.join(tree, 'mixed', name), randomBytes(2048));

    for (const folder of ['docs', 'restore', 'mixed']) {
      const added = spawnSync(
        process.execPath,
        agentArgs(home, standIn.url, 'add', path.join(tree, folder)),
        {
          cwd: path.resolve(here, '..'),
          encoding: 'utf8',
        },
      );
      expect(added.status, added.stderr).toBe(0);
    }
    await start();
  });

  afterAll(async () => {
    gate?.release();
    downloadGate?.release();
    agent?.child.kill('SIGKILL');
    await agent?.exited;
    await standIn?.stop();
    await store?.close();
    await s3rver?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(tree, { recursive: true, force: true });
  });

  it('answers only requests addressed to its loopback port by name (DNS rebinding is refused)', async () => {
    for (const host of [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`]) {
      expect((await call('GET', '/heartbeat', { host })).status).toBe(200);
    }
    for (const host of [
      'evil.test',
      `evil.test:${PORT}`,
      `127.0.0.1:${PORT + 1}`,
      `localhost.evil.test:${PORT}`,
    ]) {
      const answer = await call('GET', '/heartbeat', { host });
      expect(answer).toMatchObject({ status: 403, body: { message: agentMessages.hostRefused } });
    }
  });

  it('answers only the configured origin, and approves no preflight of another', async () => {
    const evil = await call('GET', '/heartbeat', { origin: 'http://evil.test' });
    expect(evil).toMatchObject({ status: 403, body: { message: agentMessages.originRefused } });
    const evilPreflight = await call('OPTIONS', '/files', { origin: 'http://evil.test' });
    expect(evilPreflight.status).toBe(403);
    expect(evilPreflight.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await call('OPTIONS', '/files', { origin: ORIGIN });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-headers']).toContain(AGENT_KEY_HEADER);
    expect(preflight.headers['access-control-allow-private-network']).toBe('true');
    const beat = await call('GET', '/heartbeat', { origin: ORIGIN });
    expect(beat.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(beat.body).toMatchObject({ running: true, paired: false, device_id: null, pairing: false });
  });

  it('pairs only once its user types yes in its terminal, and keeps the token private', async () => {
    expect((await call('POST', '/connect', { origin: ORIGIN, body: { ticket: 'x' } })).status).toBe(409);
    const asked = await call('POST', '/pair', { origin: ORIGIN, body: { code: 'abcdefgh' } });
    expect(asked.status).toBe(202);
    await agent.waitFor(pairingMessages.prompt(standIn.url, 'ABCD-EFGH'));
    expect((await call('GET', '/heartbeat')).body).toMatchObject({ pairing: true, paired: false });
    // One pairing at a time.
    expect((await call('POST', '/pair', { origin: ORIGIN, body: { code: 'WXYZ-2345' } })).status).toBe(409);
    agent.child.stdin.write('yes\n');
    const beat = await until('paired', async () => {
      const answer = await call('GET', '/heartbeat');
      return answer.body.paired === true ? answer.body : null;
    });
    expect(beat).toMatchObject({ device_id: standIn.deviceId, pairing: false });
    await agent.waitFor('now acts for ada@example.com');
    const config = JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')) as {
      device: { token: string };
    };
    expect(config.device.token).toBe(standIn.token);
    expect(statSync(path.join(home, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(agent.output).not.toContain(standIn.token);
  });

  it('refuses every call without a connection key, and a ticket the server does not know', async () => {
    expect(await call('GET', '/files?path=/', { origin: ORIGIN })).toMatchObject({
      status: 401,
      body: { message: agentMessages.keyMissing },
    });
    expect((await call('GET', '/status', { key: 'made-up', origin: ORIGIN })).status).toBe(401);
    expect((await call('POST', '/mkdir', { key: 'made-up', body: { path: '/docs/by-guess' } })).status).toBe(
      401,
    );
    expect(existsSync(path.join(tree, 'docs', 'by-guess'))).toBe(false);
    expect(
      await call('POST', '/connect', { origin: ORIGIN, body: { ticket: 'not-a-ticket' } }),
    ).toMatchObject({
      status: 403,
      body: { message: agentMessages.ticketInvalid },
    });
    await connect();
    expect(key).toMatch(/^[\w-]{43}$/);
    expect(agent.output).not.toContain(key);
  });

  it('lists only the added folders, without hidden names or links leading out', async () => {
    const roots = await call('GET', '/files?path=/', { key });
    expect((roots.body.items as Array<{ name: string }>).map((item) => item.name)).toEqual([
      'docs',
      'restore',
      'mixed',
    ]);
    const docs = await call('GET', '/files?path=/docs', { key });
    expect(docs.status).toBe(200);
    expect((docs.body.items as Array<{ name: string }>).map((item) => item.name)).toEqual([
      'sub',
      'a.txt',
      'big.bin',
    ]);
    expect(docs.body.items).toContainEqual(
      expect.objectContaining({ name: 'sub', path: '/docs/sub', size: -1, isDirectory: true, isFile: false }),
    );
    const paged = await call('GET', '/files?path=/docs&skip=1&limit=1', { key });
    expect(paged.body).toMatchObject({ total: 3, items: [{ name: 'a.txt', size: files['a.txt']?.length }] });
  });

  it('refuses paths outside the added folders, reading and writing nothing', async () => {
    const refusals = [
      '/docs/../outside',
      '/docs/sub/../../outside',
      '/docs/escape',
      '/docs/secret-link.txt',
      outside,
      '/etc',
      'C:\\Windows',
      '/docs/\u0000',
    ];
    for (const route of refusals) {
      const answer = await call('GET', `/files?path=${encodeURIComponent(route)}`, { key });
      expect(answer, route).toMatchObject({ status: 403, body: { message: agentMessages.pathOutside } });
    }
    const writes: Array<[string, unknown]> = [
      ['/mkdir', { path: '/docs/../made-outside' }],
      ['/mkdir', { path: '/docs/escape/made-through-link' }],
      ['/mkdir', { path: `${outside}/absolute` }],
      ['/mkdir', { path: '/docs/new\u0000' }],
      ['/delete', { path: '/docs/escape/secret.txt' }],
      ['/delete', { path: '/docs/../outside/secret.txt' }],
      [
        '/upload',
        {
          paths: ['/docs/escape'],
          remoteDirectory: { cloud_account_id: ACCOUNT, bucket_name: BUCKET, path: '' },
        },
      ],
      [
        '/upload',
        {
          paths: ['/docs/secret-link.txt'],
          remoteDirectory: { cloud_account_id: ACCOUNT, bucket_name: BUCKET, path: '' },
        },
      ],
      [
        '/download',
        { remotePaths: ['a'], cloud_account_id: ACCOUNT, bucket_name: BUCKET, localPath: '/docs/escape' },
      ],
    ];
    for (const [route, body] of writes) {
      const answer = await call('POST', route, { key, body });
      expect(answer, `${route} ${JSON.stringify(body)}`).toMatchObject({
        status: 403,
        body: { message: agentMessages.pathOutside },
      });
    }
    expect(existsSync(path.join(tree, 'made-outside'))).toBe(false);
    expect(existsSync(path.join(outside, 'made-through-link'))).toBe(false);
    expect(existsSync(path.join(outside, 'absolute'))).toBe(false);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('not for the page');
    expect((await transfers()).length).toBe(0);
    // The list of added folders itself is the command line's.
    for (const [route, target] of [
      ['/delete', '/docs'],
      ['/mkdir', '/newroot'],
    ] as const) {
      expect((await call('POST', route, { key, body: { path: target } })).status).toBe(403);
    }
    expect(await call('POST', '/delete', { key, body: { path: '/' } })).toMatchObject({
      status: 403,
      body: { message: agentMessages.readOnlyRoot },
    });
    expect(existsSync(path.join(tree, 'docs'))).toBe(true);
  });

  it('makes and deletes folders and files inside an added folder', async () => {
    expect((await call('POST', '/mkdir', { key, body: { path: '/restore/made/deeper' } })).status).toBe(201);
    expect(statSync(path.join(tree, 'restore', 'made', 'deeper')).isDirectory()).toBe(true);
    writeFileSync(path.join(tree, 'restore', 'made', 'deeper', 'x.txt'), 'x');
    expect((await call('POST', '/mkdir', { key, body: { path: '/restore/made' } })).status).toBe(409);
    expect((await call('POST', '/delete', { key, body: { path: '/restore/made' } })).status).toBe(200);
    expect(existsSync(path.join(tree, 'restore', 'made'))).toBe(false);
    expect((await call('POST', '/delete', { key, body: { path: '/restore/none' } })).status).toBe(404);
  });

  it('answers bad input in words, never a crash', async () => {
    expect((await call('POST', '/mkdir', { key, raw: '{"path":' })).status).toBe(400);
    expect((await call('POST', '/mkdir', { key, body: { path: 'a\uD800b' } })).status).toBe(400);
    expect((await call('GET', '/files?path=/docs&limit=1e400', { key })).status).toBe(400);
    expect((await call('GET', `/files?path=/docs&search=${'x'.repeat(256)}`, { key })).status).toBe(400);
    expect((await call('GET', '/files?path=/docs&search=a%00b', { key })).status).toBe(400);
    expect((await call('POST', '/cancel', { key, body: { transferID: 'nope' } })).status).toBe(404);
    expect(
      (await call('POST', '/mkdir', { key, raw: JSON.stringify({ path: 'x'.repeat(2 * MiB) }) })).status,
    ).toBe(413);
    expect((await call('GET', '/heartbeat')).status).toBe(200);
  });

  it('uploads a folder, survives kill -9 in the middle of the big file, resumes and verifies every object', async () => {
    let open: () => void = () => {};
    gate = { open: new Promise<void>((resolve) => (open = resolve)), release: () => open() };
    const started = await call('POST', '/upload', {
      key,
      body: {
        paths: ['/docs'],
        remoteDirectory: { cloud_account_id: ACCOUNT, bucket_name: BUCKET, path: 'in/' },
      },
    });
    expect(started.status).toBe(200);
    const id = started.body.transferID as string;
    // Parts 1 and 2 of the big file stored, part 3 on its way: the agent dies.
    await until('parts 1-2 of big.bin', async () => {
      const transfer = (await transfers()).find((candidate) => candidate.transferID === id);
      const big = transfer?.fileTransfers.find((file) => file.file === 'docs/big.bin');
      return big && big.transferred >= 10 * MiB && partPuts.some((put) => put.endsWith('#3'));
    });
    agent.child.kill('SIGKILL');
    await agent.exited;
    const held = gate;
    gate = null;
    held.release();

    await start();
    await connect();
    const resumed = await ended(id);
    expect(resumed).toMatchObject({
      status: 'completed',
      resumed: true,
      filesTotal: 4,
      filesDone: 4,
      percent: 100,
      transferErrors: [],
    });
    // The server's session was found again with the parts already stored, which were not sent a second time.
    expect(standIn.resumedStarts).toContainEqual({
      key: 'in/docs/big.bin',
      finishedParts: expect.any(Number),
    });
    expect(standIn.resumedStarts[0]?.finishedParts).toBeGreaterThanOrEqual(2);
    for (const [name, bytes] of Object.entries(files)) {
      const stored = await objectBytes(`in/docs/${name}`);
      expect(md5(stored), name).toBe(md5(bytes));
    }
    expect(await store.stat(BUCKET, 'in/docs/.env')).toBeNull();
    expect(await store.stat(BUCKET, 'in/docs/.git/config')).toBeNull();
    await vi.waitFor(
      () =>
        expect(standIn.history).toContainEqual({
          transfer_id: id,
          direction: 'upload',
          cloud_account_id: ACCOUNT,
          bucket_name: BUCKET,
          files: ['docs'],
          files_count: 4,
          size: Object.values(files).reduce((sum, bytes) => sum + bytes.length, 0),
          is_directory: true,
        }),
      { timeout: 10_000 },
    );
  });

  it('downloads the folder back into another added folder, byte for byte', async () => {
    // A link planted where the agent writes its part file must not let it write outside the folder.
    mkdirSync(path.join(tree, 'restore', 'docs'), { recursive: true });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(tree, 'restore', 'docs', 'a.txt.cumulo-part'));
    const started = await download('in/docs/', '/restore');
    expect(started.status).toBe(200);
    const done = await ended(started.body.transferID as string);
    expect(done).toMatchObject({
      status: 'completed',
      filesDone: 4,
      listedWhole: true,
      transferErrors: [],
      transferDirection: 'download',
    });
    for (const [name, bytes] of Object.entries(files)) {
      expect(md5(readFileSync(path.join(tree, 'restore', 'docs', name))), name).toBe(md5(bytes));
      expect(existsSync(path.join(tree, 'restore', 'docs', `${name}.cumulo-part`))).toBe(false);
    }
    // The agent reports an ended transfer to the server after it ends (its status says ended first): wait for it.
    await vi.waitFor(
      () =>
        expect(standIn.history.at(-1)).toMatchObject({
          direction: 'download',
          files: ['docs'],
          files_count: 4,
        }),
      { timeout: 10_000 },
    );
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('not for the page');
  });

  it('resumes a download after kill -9 from the blocks already written, and verifies it', async () => {
    expect((await call('POST', '/mkdir', { key, body: { path: '/restore/again' } })).status).toBe(201);
    let open: () => void = () => {};
    downloadGate = { open: new Promise<void>((resolve) => (open = resolve)), release: () => open() };
    bigGets = 0;
    const started = await download('in/docs/big.bin', '/restore/again');
    const id = started.body.transferID as string;
    await until('two blocks written', async () => {
      const transfer = (await transfers()).find((candidate) => candidate.transferID === id);
      return (transfer?.transferredBytes ?? 0) >= 10 * MiB;
    });
    // The state file is written within a second: the blocks are in it before the agent dies.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    agent.child.kill('SIGKILL');
    await agent.exited;
    const held = downloadGate;
    downloadGate = null;
    held.release();
    bigGets = 0;
    const callsBefore = standIn.calls.length;

    await start();
    await connect();
    const done = await ended(id);
    expect(done).toMatchObject({ status: 'completed', resumed: true, filesDone: 1, transferErrors: [] });
    // Six blocks in all; the two written before the kill were not fetched again.
    expect(bigGets).toBe(4);
    // The listing was read whole before the kill: the resumed run lists nothing again, and asks for its file's URL.
    const resumedCalls = standIn.calls.slice(callsBefore);
    expect(resumedCalls).not.toContain('POST /api/agent/downloads');
    expect(resumedCalls.filter((call) => call === 'POST /api/agent/downloads/urls')).toHaveLength(1);
    const copy = path.join(tree, 'restore', 'again', 'big.bin');
    expect(md5(readFileSync(copy))).toBe(md5(files['big.bin'] ?? Buffer.alloc(0)));
    expect(existsSync(`${copy}.cumulo-part`)).toBe(false);
  });

  it('fails a download whose listing breaks off half-way as not listed whole, and its retry lists the rest', async () => {
    expect((await call('POST', '/mkdir', { key, body: { path: '/restore/listing' } })).status).toBe(201);
    // The first page of the folder's listing is answered; every later page is refused, as when the bucket's keys
    // were rotated meanwhile (a refusal is final: a 502 would be waited for, 14 s here).
    const firstPage = standIn.holdNext('POST /api/agent/downloads');
    const started = await download('in/docs/', '/restore/listing');
    const id = started.body.transferID as string;
    await firstPage.reached;
    const lost = 'Access Denied';
    const failing = standIn.failCalls('POST /api/agent/downloads', 400, lost);
    firstPage.release();
    let failed: AgentTransfer;
    try {
      failed = await ended(id);
    } finally {
      failing.stop();
    }
    expect(failed).toMatchObject({
      status: 'failed',
      listedWhole: false,
      transferErrors: [{ file: 'docs', error: lost }],
    });
    // Only the files the first page named are counted (3 a page here); the rest of the folder was never named.
    expect(failed.filesTotal).toBe(3);
    expect(failed.filesDone).toBeLessThanOrEqual(3);

    const retry = await call('POST', '/retry', { key, body: { transferID: id } });
    expect(retry.status).toBe(200);
    expect(await ended(retry.body.transferID as string)).toMatchObject({
      status: 'completed',
      listedWhole: true,
      transferErrors: [],
    });
    for (const [name, bytes] of Object.entries(files))
      expect(md5(readFileSync(path.join(tree, 'restore', 'listing', 'docs', name))), name).toBe(md5(bytes));
  });

  /**
   * Uploads the folder `mixed` into `remoteFolder`, removing `mixed/m2.txt` once the walk has named it (the upload's
   * first call to the server is held meanwhile): the transfer fails that file and sends the two others.
   */
  const uploadLosingOne = async (remoteFolder: string) => {
    const hold = standIn.holdNext('POST /api/transfers/uploads/batch');
    const started = await call('POST', '/upload', {
      key,
      body: {
        paths: ['/mixed'],
        remoteDirectory: { cloud_account_id: ACCOUNT, bucket_name: BUCKET, path: remoteFolder },
      },
    });
    await hold.reached;
    rmSync(path.join(tree, 'mixed', 'm2.txt'));
    hold.release();
    return started;
  };

  it('fails a file that vanished before it was sent, sends the rest, and retries the failed one when asked', async () => {
    const started = await uploadLosingOne('');
    const done = await ended(started.body.transferID as string);
    expect(done).toMatchObject({
      status: 'failed',
      filesTotal: 3,
      filesDone: 2,
      transferErrors: [{ file: 'mixed/m2.txt', error: agentMessages.fileVanished('mixed/m2.txt') }],
    });
    expect(await store.stat(BUCKET, 'mixed/m1.txt')).not.toBeNull();
    expect(await store.stat(BUCKET, 'mixed/m3.txt')).not.toBeNull();
    expect(await store.stat(BUCKET, 'mixed/m2.txt')).toBeNull();

    // The user puts the file back and retries the failed files: only it is sent, and then nothing is left to retry.
    writeFileSync(path.join(tree, 'mixed', 'm2.txt'), 'back again, a little longer than before');
    // Two clicks at once start one retry; the transfer then says it was retried, and is not retried again.
    const retryOnce = () => call('POST', '/retry', { key, body: { transferID: started.body.transferID } });
    // Either click may be the one that wins: exactly one starts the retry, the other is refused.
    const answers = await Promise.all([retryOnce(), retryOnce()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
    const retried = answers.find((answer) => answer.status === 200) ?? answers[0];
    const twin = answers.find((answer) => answer !== retried);
    expect(retried).toMatchObject({ status: 200, body: { message: agentMessages.retryStarted } });
    expect(twin).toMatchObject({ status: 404, body: { message: agentMessages.nothingToRetry } });
    expect(await ended(started.body.transferID as string)).toMatchObject({ status: 'failed', retried: true });
    const afterwards = await retryOnce();
    expect(afterwards).toMatchObject({ status: 404, body: { message: agentMessages.nothingToRetry } });
    const again = await ended(retried.body.transferID as string);
    expect(again).toMatchObject({ status: 'completed', filesTotal: 1, filesDone: 1, transferErrors: [] });
    expect((await store.stat(BUCKET, 'mixed/m2.txt'))?.size).toBe(
      Buffer.byteLength('back again, a little longer than before'),
    );
    const nothing = await call('POST', '/retry', { key, body: { transferID: retried.body.transferID } });
    expect(nothing).toMatchObject({ status: 404, body: { message: agentMessages.nothingToRetry } });
  });

  it('leaves the failed files to retry once more when the user cancels their retry', async () => {
    const started = await uploadLosingOne('cancelled-retry/');
    const id = started.body.transferID as string;
    expect(await ended(id)).toMatchObject({ status: 'failed', filesDone: 2, retried: false });
    writeFileSync(path.join(tree, 'mixed', 'm2.txt'), 'back once more');

    // The retry is held at its first call to the server and cancelled there.
    const retryHold = standIn.holdNext('POST /api/transfers/uploads/batch');
    const retry = await call('POST', '/retry', { key, body: { transferID: id } });
    expect(retry.status).toBe(200);
    await retryHold.reached;
    expect(await call('POST', '/cancel', { key, body: { transferID: retry.body.transferID } })).toMatchObject(
      {
        status: 200,
      },
    );
    retryHold.release();
    expect(await ended(retry.body.transferID as string)).toMatchObject({ status: 'cancelled' });
    expect((await transfers()).find((transfer) => transfer.transferID === id)).toMatchObject({
      retried: false,
    });

    const again = await call('POST', '/retry', { key, body: { transferID: id } });
    expect(again).toMatchObject({ status: 200, body: { message: agentMessages.retryStarted } });
    expect(await ended(again.body.transferID as string)).toMatchObject({ status: 'completed', filesDone: 1 });
    expect((await store.stat(BUCKET, 'cancelled-retry/mixed/m2.txt'))?.size).toBe(
      Buffer.byteLength('back once more'),
    );
    expect((await transfers()).find((transfer) => transfer.transferID === id)).toMatchObject({
      retried: true,
    });
  });

  it('forwards a share to the server with its device token', async () => {
    const answer = await call('POST', '/share', {
      key,
      body: {
        cloud_account_id: ACCOUNT,
        bucket_name: BUCKET,
        paths: ['in/docs/a.txt'],
        recipients: ['bob@example.com'],
      },
    });
    expect(answer).toMatchObject({ status: 200, body: { message: 'Files shared' } });
    expect(standIn.shares.at(-1)).toMatchObject({
      files: [{ name: 'in/docs/a.txt', bucket_name: BUCKET, cloud_account_id: ACCOUNT }],
      recipients: ['bob@example.com'],
    });
  });

  it('refuses a copy whose bytes differ from the bucket’s, leaving nothing in place', async () => {
    await store.write(BUCKET, 'tampered/report.bin', randomBytes(64 * 1024));
    standIn.tamper('tampered/report.bin');
    const started = await download('tampered/', '/restore');
    const done = await ended(started.body.transferID as string);
    expect(done).toMatchObject({
      status: 'failed',
      filesDone: 0,
      transferErrors: [
        { file: 'tampered/report.bin', error: agentMessages.verifyFailed('tampered/report.bin') },
      ],
    });
    expect(existsSync(path.join(tree, 'restore', 'tampered', 'report.bin'))).toBe(false);
    expect(existsSync(path.join(tree, 'restore', 'tampered', 'report.bin.cumulo-part'))).toBe(false);
  });

  it('cancels an upload under way and aborts its open session with the store', async () => {
    let open: () => void = () => {};
    gate = { open: new Promise<void>((resolve) => (open = resolve)), release: () => open() };
    const started = await call('POST', '/upload', {
      key,
      body: {
        paths: ['/docs/big.bin'],
        remoteDirectory: { cloud_account_id: ACCOUNT, bucket_name: BUCKET, path: 'cancelled/' },
      },
    });
    const id = started.body.transferID as string;
    await until('an open upload', async () => (await s3rver.openUploads(BUCKET, 'cancelled/')).length === 1);
    await until('part 3 on its way', async () => partPuts.filter((put) => put.endsWith('#3')).length >= 2);
    expect(await call('POST', '/cancel', { key, body: { transferID: id } })).toMatchObject({
      status: 200,
      body: { message: agentMessages.cancelled },
    });
    expect(await ended(id)).toMatchObject({ status: 'cancelled' });
    expect(await s3rver.openUploads(BUCKET, 'cancelled/')).toEqual([]);
    expect(await store.stat(BUCKET, 'cancelled/big.bin')).toBeNull();
    gate.release();
    gate = null;
  });

  it('refuses page pairing when it runs without a terminal, pointing to `cumulo-agent pair`', async () => {
    const otherHome = await mkdtemp(path.join(os.tmpdir(), 'cumulo-agent-daemon-'));
    const daemon = spawn(
      process.execPath,
      agentArgs(otherHome, standIn.url, 'start', '--port', String(PORT + 1)),
      {
        cwd: path.resolve(here, '..'),
        env: { ...process.env, NODE_OPTIONS: '' },
        // No terminal and nothing to read: how a service runs it.
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      await until('the daemon', async () => {
        const answer = await call('GET', '/heartbeat', { port: PORT + 1 }).catch(() => null);
        return answer?.status === 200;
      });
      expect(await call('POST', '/pair', { port: PORT + 1, body: { code: 'ABCD-EFGH' } })).toMatchObject({
        status: 409,
        body: { message: pairingMessages.noTerminal },
      });
    } finally {
      daemon.kill('SIGKILL');
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  it('forgets its token and every key once the server says the device is revoked, failing the transfer under way', async () => {
    let open: () => void = () => {};
    gate = { open: new Promise<void>((resolve) => (open = resolve)), release: () => open() };
    const seen = partPuts.length;
    const started = await call('POST', '/upload', {
      key,
      body: {
        paths: ['/docs/big.bin'],
        remoteDirectory: { cloud_account_id: ACCOUNT, bucket_name: BUCKET, path: 'revoked/' },
      },
    });
    const id = started.body.transferID as string;
    await until('part 3 on its way', async () => partPuts.slice(seen).some((put) => put.endsWith('#3')));
    // Revoked on /profile while the parts are in flight: the next server call of the transfer gets a 401.
    standIn.revoke();
    gate.release();
    gate = null;
    // Read as a restarted agent reads it: the snapshot and its log.
    const ended = await until('the transfer to end', async () => {
      const saved = await new StateStore(home, () => []).load();
      const transfer = saved.find((candidate) => candidate.id === id);
      return transfer?.endedAt ? transfer : null;
    });
    expect(ended).toMatchObject({ status: 'failed', files: [{ error: agentMessages.deviceUnknown }] });
    expect((await call('GET', '/heartbeat')).body).toMatchObject({ paired: false, device_id: null });
    expect((await call('GET', '/status', { key })).status).toBe(401);
    const config = JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')) as { device: unknown };
    expect(config.device).toBeNull();
    expect(await store.stat(BUCKET, 'revoked/big.bin')).toBeNull();
  });

  it('learns of a revocation from its heartbeat check, with nothing under way', async () => {
    standIn.pairAgain();
    expect((await call('POST', '/pair', { origin: ORIGIN, body: { code: standIn.code } })).status).toBe(202);
    await agent.waitFor(pairingMessages.prompt(standIn.url, standIn.code));
    agent.child.stdin.write('yes\n');
    await until('paired again', async () => (await call('GET', '/heartbeat')).body.paired === true);
    await connect();
    expect((await call('GET', '/status', { key })).status).toBe(200);
    standIn.revoke();
    await until('paired:false', async () => (await call('GET', '/heartbeat')).body.paired === false, 15_000);
    expect((await call('GET', '/status', { key })).status).toBe(401);
    const config = JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')) as { device: unknown };
    expect(config.device).toBeNull();
  });
});
