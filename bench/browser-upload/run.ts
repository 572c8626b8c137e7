// bench/browser-upload: a 1 GiB file uploaded from Chromium through the /S3Direct page (presigned multipart
// parts straight to s3rver) next to `rclone copyto` of the same file to the same s3rver.
// Goal (issue 4): MiB/s of the browser upload ≥ 0.8 × rclone's. Exits 1 when missed or the object differs.
//
// Folder mode (issue 21): a folder of 2 000 files of 4 KiB picked in /S3Direct, next to `rclone copy` of the same
// folder (rclone's defaults) to the same s3rver. Goal: the browser's files per second ≥ 0.5 × rclone's.
//
//   npm run browser-upload -w bench [-- --size-mib 1024]
//   npm run browser-upload -w bench -- --folder [--files 2000 --file-kib 4] [--width 1440]
//
// Needs rclone (Debian: apt-get install -y rclone) and Chromium (apt-get install -y chromium). The file is cached
// in bench/.data/browser-upload.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright';
import { SMTPServer } from 'smtp-server';
import {
  UPLOAD_BATCH_MAX,
  UPLOAD_SMALL_FILES_IN_FLIGHT,
  type StartUploadBatchAnswer,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot, startS3rverProcess } from '../inventory/s3rver-process.ts';
import { openBucketInBrowser } from './open-bucket.ts';
import { rcloneEnv } from '../shared/rclone.ts';

const RATIO_GOAL = 0.8;
const FOLDER_RATIO_GOAL = 0.5;
const MiB = 1024 * 1024;
const PASSWORD = 'Sunny#day7';

const { values: options } = parseArgs({
  options: {
    'size-mib': { type: 'string', default: '1024' },
    port: { type: 'string', default: '8191' },
    folder: { type: 'boolean', default: false },
    files: { type: 'string', default: '2000' },
    'file-kib': { type: 'string', default: '4' },
    width: { type: 'string', default: '1440' },
  },
});
const folderMode = options.folder === true;
const fileCount = Number(options.files);
const fileKiB = Number(options['file-kib']);
if (folderMode && !(fileCount > 0 && fileKiB > 0)) throw new Error('bad --files or --file-kib');
const sizeMiB = Number(options['size-mib']);
const port = Number(options.port);
const width = Number(options.width);
if (!(width >= 800)) throw new Error('bad --width');
if (!(sizeMiB > 0)) throw new Error('bad --size-mib');

const dataDir = path.join(repoRoot, 'bench/.data/browser-upload');
fs.mkdirSync(dataDir, { recursive: true });

/** Random bytes (nothing compresses or deduplicates), written once and reused. */
async function ensureFile(): Promise<string> {
  const file = path.join(dataDir, `random-${sizeMiB}MiB.bin`);
  if (fs.statSync(file, { throwIfNoEntry: false })?.size === sizeMiB * MiB) return file;
  const out = fs.createWriteStream(`${file}.part`);
  for (let i = 0; i < sizeMiB; i += 1) {
    if (!out.write(randomBytes(MiB)))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
  fs.renameSync(`${file}.part`, file);
  return file;
}

/** A folder of `fileCount` random files of `fileKiB` KiB in 20 sub-folders, written once and reused. */
function ensureFolder(): string {
  const folder = path.join(dataDir, `folder-${fileCount}x${fileKiB}KiB`, 'bench-folder');
  const done = path.join(folder, '..', 'complete');
  if (fs.existsSync(done)) return folder;
  fs.rmSync(path.dirname(folder), { recursive: true, force: true });
  for (let i = 0; i < fileCount; i += 1) {
    const sub = path.join(folder, `d${String(i % 20).padStart(2, '0')}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${String(i).padStart(5, '0')}.bin`), randomBytes(fileKiB * 1024));
  }
  fs.writeFileSync(done, '');
  return folder;
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function sha256OfObject(store: S3ObjectStore, bucket: string, key: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await store.read(bucket, key)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** A mail sink in this process: the sign-up's verification link is read from it. */
async function startMailSink() {
  const mails: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push(
          Buffer.concat(chunks)
            .toString('utf8')
            .replace(/=\r?\n/g, '')
            .replace(/=3D/g, '='),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const address = smtp.server.address();
  const smtpPort = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${smtpPort}`,
    mails,
    stop: () => new Promise<void>((r) => smtp.close(() => r())),
  };
}

async function startServer(s3rver: string, smtpUrl: string) {
  const serverData = fs.mkdtempSync(path.join(dataDir, 'server-'));
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: `http://localhost:${port}`,
      DATA_DIR: serverData,
      SMTP_URL: smtpUrl,
      LOG_LEVEL: 'warn',
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver }),
      ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 180_000;
  for (;;) {
    const ready = await fetch(`http://localhost:${port}/api/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) break;
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} during start-up`);
    if (Date.now() > deadline) throw new Error('the server did not answer /api/health within 180 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(serverData, { recursive: true, force: true });
    },
  };
}

async function signUpAndConnect(page: Page, mails: string[]) {
  const base = `http://localhost:${port}`;
  const email = `bench.${Date.now()}@example.com`;
  const signup = await page.request.post(`${base}/api/users`, {
    data: { email, password: PASSWORD, first_name: 'Bench', last_name: 'Runner' },
  });
  if (signup.status() !== 201) throw new Error(`sign-up answered ${signup.status()}`);
  let token: string | undefined;
  for (let i = 0; i < 100 && !token; i += 1) {
    token = mails
      .filter((m) => m.includes(email))
      .map((m) => /\/verify\/([\w-]+)/.exec(m)?.[1])
      .find(Boolean);
    if (!token) await new Promise((r) => setTimeout(r, 100));
  }
  if (!token) throw new Error('no verification mail');
  await page.request.put(`${base}/api/verify_user`, { data: { verification_token: token } });
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));

  await page.goto(`${base}/addProvider/aws`);
  await page.getByLabel('Name', { exact: true }).fill('Bench AWS');
  await page.getByLabel('Access Key', { exact: true }).fill(S3RVER_KEY);
  await page.getByLabel('Secret Key', { exact: true }).fill(S3RVER_KEY);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Skip this Step' }).click();
  await page.waitForURL(`${base}/`);
}

async function apiCall(
  page: Page,
  method: 'GET' | 'PUT' | 'POST',
  apiPath: string,
  data?: unknown,
): Promise<unknown> {
  const token = await page.evaluate(() => localStorage.getItem('Authorization') ?? '');
  const response = await page.request.fetch(`http://localhost:${port}/api${apiPath}`, {
    method,
    data,
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok())
    throw new Error(`${method} ${apiPath} answered ${response.status()}: ${await response.text()}`);
  return response.json();
}

/** Ends the shared set-up early once the folder run has its figures (the 1 GiB steps below are skipped). */
class FolderDone extends Error {}

async function countObjects(bucket: string, prefix: string): Promise<number> {
  let count = 0;
  for await (const listed of store.list(bucket, { prefix })) count += listed.objects.length;
  return count;
}

/**
 * The bound the engine can reach: the same Chromium page posting the same kind of signed forms (one batch call per
 * UPLOAD_BATCH_MAX files, signed before timing) in a bare loop with the engine's number in flight; no engine, no
 * progress, no completion calls. Blobs of random bytes stand in for the picked files.
 */
async function bareChromiumSeconds(page: Page, accountId: string, bucket: string): Promise<number> {
  const signed: Array<{ url: string; key: string; fields: Record<string, string> }> = [];
  for (let first = 0; first < fileCount; first += UPLOAD_BATCH_MAX) {
    const files = Array.from({ length: Math.min(UPLOAD_BATCH_MAX, fileCount - first) }, (_, i) => ({
      key: `bare-folder/f${first + i}.bin`,
      size: fileKiB * 1024,
      fingerprint: `bare-${first + i}`,
    }));
    const answer = (await apiCall(page, 'POST', '/transfers/uploads/batch', {
      cloud_account_id: accountId,
      bucket_name: bucket,
      files,
    })) as StartUploadBatchAnswer;
    for (const file of answer.files) {
      if (file.method !== 'POST') throw new Error('the bare loop expects signed forms');
      signed.push({ url: file.url, key: file.key, fields: { ...answer.form_fields, ...file.fields } });
    }
  }
  return page.evaluate(
    async ({ targets, bytes, inFlight }) => {
      const started = performance.now();
      let next = 0;
      // No named functions in here: tsx names them with a helper the page does not have.
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          for (let target = targets[next++]; target; target = targets[next++]) {
            const form = new FormData();
            for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
            form.append('key', target.key);
            form.append('Content-Type', 'application/octet-stream');
            form.append('file', new Blob([crypto.getRandomValues(new Uint8Array(bytes))]));
            const answer = await fetch(target.url, { method: 'POST', body: form });
            if (!answer.ok) throw new Error(`form POST answered ${answer.status}`);
          }
        }),
      );
      return (performance.now() - started) / 1000;
    },
    { targets: signed, bytes: fileKiB * 1024, inFlight: UPLOAD_SMALL_FILES_IN_FLIGHT },
  );
}

/** The folder through the page, then `rclone copy` of it; prints both file rates. Returns the exit code. */
async function folderRun(page: Page, accountId: string, bucket: string): Promise<number> {
  await page.getByLabel('Folder to upload').setInputFiles(folder);
  const started = performance.now();
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page
    .getByRole('status', { name: 'Upload summary' })
    .getByLabel('Files done')
    .filter({ hasText: `${fileCount} of ${fileCount} files` })
    .waitFor({ timeout: 30 * 60_000 });
  const browserSeconds = (performance.now() - started) / 1000;
  // The other half: the page stays short with thousands of files (no row per file).
  const pageHeight = await page.evaluate('document.documentElement.scrollHeight');
  const screenshot = path.join(dataDir, `folder-${fileCount}-${width}px.png`);
  await page.screenshot({ path: screenshot, fullPage: true });
  const sample = 'd07/f00007.bin';
  const sampleHash = await sha256OfFile(path.join(folder, sample));
  const browserCount = await countObjects(bucket, 'bench-folder/');
  const browserOk =
    browserCount === fileCount &&
    (await sha256OfObject(store, bucket, `bench-folder/${sample}`)) === sampleHash;

  const env = rcloneEnv(s3rver.endpoint);
  const version = await run('rclone', ['version'], env);
  if (version.code !== 0) throw new Error(`rclone is missing (apt-get install -y rclone)\n${version.output}`);
  const rcloneStarted = performance.now();
  const copy = await run(
    'rclone',
    ['--config', '/dev/null', 'copy', folder, `s3rver:${bucket}/rclone-folder`],
    env,
  );
  const rcloneSeconds = (performance.now() - rcloneStarted) / 1000;
  if (copy.code !== 0) throw new Error(`rclone copy exited ${copy.code}\n${copy.output}`);
  const rcloneCount = await countObjects(bucket, 'rclone-folder/');
  const rcloneOk =
    rcloneCount === fileCount &&
    (await sha256OfObject(store, bucket, `rclone-folder/${sample}`)) === sampleHash;

  const browserRate = fileCount / browserSeconds;
  const rcloneRate = fileCount / rcloneSeconds;
  const bareSeconds = await bareChromiumSeconds(page, accountId, bucket);
  const bareCount = await countObjects(bucket, 'bare-folder/');
  const bareRate = fileCount / bareSeconds;
  const ratio = browserRate / rcloneRate;
  const pass = ratio >= FOLDER_RATIO_GOAL && browserOk && rcloneOk;
  console.log(`browser-upload --folder: ${fileCount} files of ${fileKiB} KiB to s3rver (${s3rver.endpoint})`);
  console.log(
    `  Chromium /S3Direct  ${browserSeconds.toFixed(2)} s  ${browserRate.toFixed(1)} files/s  ${browserCount} objects ${browserOk ? 'ok' : 'WRONG'}`,
  );
  console.log(
    `  rclone copy         ${rcloneSeconds.toFixed(2)} s  ${rcloneRate.toFixed(1)} files/s  ${rcloneCount} objects ${rcloneOk ? 'ok' : 'WRONG'}`,
  );
  console.log(
    `  bound: bare Chromium loop, same signed forms, ${UPLOAD_SMALL_FILES_IN_FLIGHT} in flight  ${bareSeconds.toFixed(2)} s  ${bareRate.toFixed(1)} files/s  ${bareCount} objects (browser/bare ${(browserRate / bareRate).toFixed(2)}, bare/rclone ${(bareRate / rcloneRate).toFixed(2)})`,
  );
  console.log(`  page ${width} px wide, ${pageHeight} px high at the end (screenshot ${screenshot})`);
  console.log(
    `  ratio browser/rclone ${ratio.toFixed(2)} (goal ≥ ${FOLDER_RATIO_GOAL}): ${pass ? 'PASS' : 'FAIL'}`,
  );
  return pass ? 0 : 1;
}

const file = folderMode ? '' : await ensureFile();
const expected = folderMode ? '' : await sha256OfFile(file);
const folder = folderMode ? ensureFolder() : '';
const s3rverDir = fs.mkdtempSync(path.join(dataDir, 's3rver-'));
const s3rver = await startS3rverProcess(s3rverDir);
const mail = await startMailSink();
const server = await startServer(s3rver.endpoint, mail.url);
const store = new S3ObjectStore({
  provider: 'genericS3',
  accessKeyId: S3RVER_KEY,
  secretAccessKey: S3RVER_KEY,
  endpoint: s3rver.endpoint,
});
const bucket = `bench-${Date.now().toString(36)}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
let exitCode = 1;
try {
  await store.createBucket(bucket);
  const page = await browser.newPage({
    baseURL: `http://localhost:${port}`,
    viewport: { width, height: 900 },
  });
  await signUpAndConnect(page, mail.mails);
  const accounts = (await apiCall(page, 'GET', '/cloud_accounts/')) as Array<{ id: string; name: string }>;
  const account = accounts.find((a) => a.name === 'Bench AWS');
  if (!account) throw new Error('the account was not saved');
  // The same rules the page's Apply button sets; applied up front so the timing holds only the upload.
  await apiCall(page, 'PUT', '/transfers/update_bucket_config/', {
    cloud_account_id: account.id,
    bucket_name: bucket,
    cors: true,
  });

  await page.goto('/S3Direct');
  await openBucketInBrowser(page, 'Bench AWS', bucket);
  if (folderMode) {
    exitCode = await folderRun(page, account.id, bucket);
    throw new FolderDone();
  }
  await page.getByLabel('Files to upload').setInputFiles(file);
  const started = performance.now();
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page
    .getByText('Upload Complete')
    .first()
    .waitFor({ timeout: 30 * 60_000 });
  const browserSeconds = (performance.now() - started) / 1000;
  const uploadedName = path.basename(file);
  const browserOk = (await sha256OfObject(store, bucket, uploadedName)) === expected;

  const version = await run('rclone', ['version'], rcloneEnv(s3rver.endpoint));
  if (version.code !== 0) throw new Error(`rclone is missing (apt-get install -y rclone)\n${version.output}`);
  const rcloneStarted = performance.now();
  const copy = await run(
    'rclone',
    ['--config', '/dev/null', 'copyto', file, `s3rver:${bucket}/rclone-${uploadedName}`],
    rcloneEnv(s3rver.endpoint),
  );
  const rcloneSeconds = (performance.now() - rcloneStarted) / 1000;
  if (copy.code !== 0) throw new Error(`rclone copyto exited ${copy.code}\n${copy.output}`);
  const rcloneOk = (await sha256OfObject(store, bucket, `rclone-${uploadedName}`)) === expected;

  const browserRate = sizeMiB / browserSeconds;
  const rcloneRate = sizeMiB / rcloneSeconds;
  const ratio = browserRate / rcloneRate;
  const pass = ratio >= RATIO_GOAL && browserOk && rcloneOk;
  console.log(`browser-upload: ${sizeMiB} MiB to s3rver (${s3rver.endpoint})`);
  console.log(
    `  Chromium /S3Direct  ${browserSeconds.toFixed(2)} s  ${browserRate.toFixed(1)} MiB/s  content ${browserOk ? 'identical' : 'DIFFERS'}`,
  );
  console.log(
    `  rclone copyto       ${rcloneSeconds.toFixed(2)} s  ${rcloneRate.toFixed(1)} MiB/s  content ${rcloneOk ? 'identical' : 'DIFFERS'}`,
  );
  console.log(`  ratio browser/rclone ${ratio.toFixed(2)} (goal ≥ ${RATIO_GOAL}): ${pass ? 'PASS' : 'FAIL'}`);
  exitCode = pass ? 0 : 1;
} catch (error) {
  if (!(error instanceof FolderDone)) throw error;
} finally {
  await browser.close();
  await store.close();
  await server.stop();
  await mail.stop();
  await s3rver.stop();
  fs.rmSync(s3rverDir, { recursive: true, force: true });
}
process.exit(exitCode);
