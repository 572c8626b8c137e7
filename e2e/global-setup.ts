import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { mailDir } from './mail.ts';
import { e2eTmp } from './tmp-dir.ts';
import { E2E_OPERATOR_EMAIL } from './session.ts';
import { E2E_OIDC_CLIENT, startOidcProvider } from './oidc-provider.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/**
 * Starts a real SMTP sink (each mail saved as a file the tests read) and the real server with `npm start`'s
 * entry on a fresh data directory; returns the teardown.
 */
export default async function globalSetup() {
  const port = Number(process.env.E2E_PORT ?? 8181);
  // A server already on the port would answer the health check below and the tests would run against it.
  const taken = await fetch(`http://localhost:${port}/api/health`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`port ${port} is already in use; stop that server or set E2E_PORT`);

  const tmp = e2eTmp;
  const dataDir = path.join(tmp, `data-${Date.now()}`);
  fs.rmSync(mailDir, { recursive: true, force: true });
  fs.mkdirSync(mailDir, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true });
  for (const old of fs
    .readdirSync(tmp)
    .filter((d) => d.startsWith('data-') && path.join(tmp, d) !== dataDir)) {
    fs.rmSync(path.join(tmp, old), { recursive: true, force: true });
  }

  let count = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const file = path.join(mailDir, `${String(++count).padStart(4, '0')}.json`);
        const raw = Buffer.concat(chunks).toString('utf8');
        // Written aside and renamed into place: a test polling the folder never reads a half-written mail.
        fs.writeFileSync(
          `${file}.part`,
          JSON.stringify({ to: session.envelope.rcptTo.map((r) => r.address), raw }),
        );
        fs.renameSync(`${file}.part`, file);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const address = smtp.server.address();
  const smtpPort = typeof address === 'object' && address ? address.port : 0;

  // Real object stores: s3rver stands in for aws (and serves the generic S3 account), Azurite for azure; each in its
  // own process (object-stores.ts says why).
  const startStore = (which: 's3rver' | 'azurite') => {
    const child = spawn(
      process.execPath,
      ['--openssl-legacy-provider', '--import', 'tsx', path.join(here, 'object-stores.ts'), which],
      { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const answer = new Promise<Record<string, string>>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) resolve(JSON.parse(line) as Record<string, string>);
      });
      child.once('exit', (code) => reject(new Error(`the ${which} process exited with ${code}`)));
    });
    return { child, answer };
  };
  const stores = [startStore('s3rver'), startStore('azurite')];
  const [s3rverAnswer, azuriteAnswer] = await Promise.all(stores.map((store) => store.answer));
  const endpoints = {
    s3rver: s3rverAnswer?.s3rver ?? '',
    s3rverRequests: s3rverAnswer?.s3rverRequests ?? '',
    azurite: azuriteAnswer?.azurite ?? '',
  };
  // The specs read these (Playwright workers inherit the global setup's environment).
  process.env.E2E_S3RVER = endpoints.s3rver;
  process.env.E2E_AZURITE = endpoints.azurite;
  process.env.E2E_S3RVER_REQUESTS = endpoints.s3rverRequests;

  // /oktalogin signs in at a real local OpenID provider (sso.e2e.ts); Google stays unconfigured.
  const oidcProvider = await startOidcProvider(`http://localhost:${port}/api/oauth/callback`);

  const server = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: `http://localhost:${port}`,
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: endpoints.s3rver, azure: endpoints.azurite }),
      // The generic S3 accounts the specs connect point at s3rver on 127.0.0.1.
      ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
      OIDC_ISSUER: oidcProvider.issuer,
      OIDC_CLIENT_ID: E2E_OIDC_CLIENT.client_id,
      OIDC_CLIENT_SECRET: E2E_OIDC_CLIENT.client_secret,
      OIDC_NAME: 'Local SSO',
      // The operator of this Cumulo in admin.e2e.ts (besides the install's first account, whichever spec makes it).
      OPERATOR_EMAILS: E2E_OPERATOR_EMAIL,
      // Every spec signs up a new Owner from 127.0.0.1, one verification mail each: past 30 in an hour (the
      // default) the 31st spec's sign-up answered 429.
      MAIL_LIMIT_PER_IP: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The server's output goes on to the console and into a file, which billing.e2e.ts searches for card numbers.
  const serverLog = fs.createWriteStream(path.join(dataDir, 'server.log'));
  server.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    serverLog.write(chunk);
  });
  server.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    serverLog.write(chunk);
  });
  process.env.E2E_SERVER_LOG = path.join(dataDir, 'server.log');
  const exited = new Promise<number>((resolve) => server.once('exit', (code) => resolve(code ?? 1)));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ready = await fetch(`http://localhost:${port}/api/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) break;
    if (server.exitCode !== null)
      throw new Error(`the server exited with ${server.exitCode} during start-up`);
    if (Date.now() > deadline) throw new Error('the server did not answer /api/health within 120 s');
    await new Promise((r) => setTimeout(r, 250));
  }

  return async () => {
    server.kill('SIGTERM');
    await exited;
    serverLog.end();
    await Promise.all(
      stores.map(({ child }) => {
        const storeExited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin.end();
        return storeExited;
      }),
    );
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await oidcProvider.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
