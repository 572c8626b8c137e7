// bench/agent: the transfer agent (apps/agent, as downloaded: the single-file build on Node) uploading a local folder
// of 2 000 files of 64 KiB and two of 1 GiB to s3rver, then downloading it back, next to `rclone copy` of the same
// folder to and from the same s3rver (issue 27). The agent talks to a real Cumulo server (the app in this process,
// on a real port, embedded PostgreSQL), paired through the API with a code as a signed-up user pairs it.
//
// Goals: agent time ≤ 1.0 × rclone's, agent peak RSS ≤ rclone's, for the upload and for the download. Exits 1 when
// a goal is missed or a copy differs.
//
//   npx tsx bench/agent/run.ts [--files 2000 --file-kib 64 --big 2 --big-mib 1024] [--only rclone|download]
//     [--server-port 4611 --agent-port 47450]
//
// `--only download` skips the agent's upload: the agent downloads the copy rclone uploaded (same bytes, 5 MiB
// multipart parts as the agent's own), for working on the download alone; the full run is the one to report.
//
// Needs rclone (Debian: apt-get install -y rclone) and GNU time (/usr/bin/time). The folder is cached in
// bench/.data/agent.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_KEY_HEADER, agentStatusAnswer, type AgentTransfer } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot, startS3rverProcess } from '../inventory/s3rver-process.ts';
import { startBenchApp } from '../shared/bench-app.ts';
import { signedInBenchMember } from '../shared/bench-member.ts';
import { rcloneEnv, timedRclone, type PeerRun } from '../shared/rclone.ts';
import { settleDisk } from '../shared/settle.ts';
import { agentBundle, agentNodeFlags, bundleAgent } from '../../scripts/build-agent.mjs';

const TIME_GOAL = 1.0;
const RSS_GOAL = 1.0;
const MiB = 1024 * 1024;
const BUCKET = 'agent-bench';

const { values: options } = parseArgs({
  options: {
    files: { type: 'string', default: '2000' },
    'file-kib': { type: 'string', default: '64' },
    big: { type: 'string', default: '2' },
    'big-mib': { type: 'string', default: '1024' },
    only: { type: 'string' },
    'server-port': { type: 'string', default: '4611' },
    'agent-port': { type: 'string', default: '47450' },
  },
});
if (options.only !== undefined && options.only !== 'rclone' && options.only !== 'download')
  throw new Error('--only is rclone or download');
const SERVER_PORT = Number(options['server-port']);
const AGENT_PORT = Number(options['agent-port']);
const fileCount = Number(options.files);
const fileKiB = Number(options['file-kib']);
const bigCount = Number(options.big);
const bigMiB = Number(options['big-mib']);
if (![fileCount, fileKiB, bigCount, bigMiB].every((n) => Number.isInteger(n) && n >= 0))
  throw new Error('bad --files, --file-kib, --big or --big-mib');

const dataDir = path.join(repoRoot, 'bench/.data/agent');
const folderName = 'bench-folder';

/** The folder: `fileCount` random files in 20 sub-folders and `bigCount` big random files, written once. */
function ensureFolder(): string {
  const parent = path.join(dataDir, `source-${fileCount}x${fileKiB}KiB-${bigCount}x${bigMiB}MiB`);
  const folder = path.join(parent, folderName);
  const done = path.join(parent, 'complete');
  if (fs.existsSync(done)) return folder;
  fs.rmSync(parent, { recursive: true, force: true });
  for (let i = 0; i < fileCount; i += 1) {
    const sub = path.join(folder, `d${String(i % 20).padStart(2, '0')}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${String(i).padStart(5, '0')}.bin`), randomBytes(fileKiB * 1024));
  }
  fs.mkdirSync(folder, { recursive: true });
  for (let b = 0; b < bigCount; b += 1) {
    const fd = fs.openSync(path.join(folder, `big-${b}.bin`), 'w');
    for (let m = 0; m < bigMiB; m += 1) fs.writeSync(fd, randomBytes(MiB));
    fs.closeSync(fd);
  }
  fs.writeFileSync(done, '');
  return folder;
}

/** md5 of every file under `folder`, by relative path. */
function digests(folder: string): Map<string, string> {
  const result = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
      else {
        const hash = createHash('md5');
        const fd = fs.openSync(full, 'r');
        const buffer = Buffer.allocUnsafe(4 * MiB);
        for (let n = fs.readSync(fd, buffer); n > 0; n = fs.readSync(fd, buffer))
          hash.update(buffer.subarray(0, n));
        fs.closeSync(fd);
        result.set(`${prefix}${entry.name}`, hash.digest('hex'));
      }
    }
  };
  walk(folder, '');
  return result;
}

function sameDigests(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, md5] of a) if (b.get(name) !== md5) return false;
  return true;
}

interface AgentRun {
  child: ChildProcess;
  /** GNU time's line: peak RSS, user and system seconds, once the agent exited. */
  stopped: () => Promise<PeerRun & { output: string }>;
}

/**
 * A command of the built agent with its own home (add, pair …). Not spawnSync: the Cumulo server it calls runs in
 * this process, whose event loop must keep turning.
 */
function agentCommand(home: string, serverUrl: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [agentBundle, ...args, '--home', home, '--server', serverUrl, '--port', String(AGENT_PORT)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`cumulo-agent ${args.join(' ')} failed:\n${output}`)),
    );
  });
}

async function startAgent(home: string, serverUrl: string): Promise<AgentRun> {
  // Another agent on the port would answer for this one (and the new one would exit at once, "already running").
  const taken = await fetch(`http://127.0.0.1:${AGENT_PORT}/heartbeat`)
    .then(() => true)
    .catch(() => false);
  if (taken) throw new Error(`port ${AGENT_PORT} is taken: stop the program using it first`);
  settleDisk();
  const child = spawn(
    '/usr/bin/time',
    [
      '-f',
      '%M %U %S',
      process.execPath,
      // As the packaging launchers start it. BENCH_AGENT_FLAGS adds Node flags, e.g. '--cpu-prof
      // --cpu-prof-dir=/tmp/agent' to see where the agent's CPU goes (bench/inventory's BENCH_S3RVER_FLAGS likewise).
      ...agentNodeFlags,
      ...(process.env.BENCH_AGENT_FLAGS?.split(' ').filter(Boolean) ?? []),
      agentBundle,
      'start',
      '--home',
      home,
      '--server',
      serverUrl,
      '--port',
      String(AGENT_PORT),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i += 1) {
    const up = await fetch(`http://127.0.0.1:${AGENT_PORT}/heartbeat`)
      .then((answer) => answer.ok)
      .catch(() => false);
    if (up) break;
    if (i > 200) throw new Error(`the agent did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    stopped: async () => {
      // The agent's own process is GNU time's child: SIGTERM to it, so time prints its figures.
      spawnSync('pkill', ['-TERM', '-P', String(child.pid)]);
      await exited;
      const [rssKib, user, system] = (output.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
      return {
        seconds: 0,
        peakRssMb: Number(rssKib) / 1024,
        cpuSeconds: Number(user) + Number(system),
        output,
      };
    },
  };
}

async function agentCall(method: 'GET' | 'POST', route: string, key: string | null, body?: unknown) {
  const answer = await fetch(`http://127.0.0.1:${AGENT_PORT}${route}`, {
    method,
    headers: {
      ...(key ? { [AGENT_KEY_HEADER]: key } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = (await answer.json()) as unknown;
  if (!answer.ok)
    throw new Error(`agent ${method} ${route} answered ${answer.status}: ${JSON.stringify(payload)}`);
  return payload;
}

async function waitForEnd(key: string, transferId: string): Promise<AgentTransfer> {
  for (;;) {
    const status = agentStatusAnswer.parse(await agentCall('GET', '/status', key));
    const transfer = status.data.allTransfers.find((candidate) => candidate.transferID === transferId);
    if (transfer?.endedAt) return transfer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function line(label: string, agent: PeerRun, rclone: PeerRun) {
  const time = agent.seconds / rclone.seconds;
  const rss = agent.peakRssMb / rclone.peakRssMb;
  console.log(
    `${label}: agent ${agent.seconds.toFixed(1)} s, ${agent.peakRssMb.toFixed(0)} MB peak, ${agent.cpuSeconds.toFixed(1)} CPU-s` +
      ` | rclone ${rclone.seconds.toFixed(1)} s, ${rclone.peakRssMb.toFixed(0)} MB peak, ${rclone.cpuSeconds.toFixed(1)} CPU-s` +
      ` | time ${time.toFixed(3)} (goal ≤ ${TIME_GOAL}) ${time <= TIME_GOAL ? 'met' : 'MISSED'}` +
      ` | RSS ${rss.toFixed(3)} (goal ≤ ${RSS_GOAL}) ${rss <= RSS_GOAL ? 'met' : 'MISSED'}`,
  );
  return time <= TIME_GOAL && rss <= RSS_GOAL;
}

async function main(): Promise<number> {
  fs.mkdirSync(dataDir, { recursive: true });
  const folder = ensureFolder();
  const sourceDigests = digests(folder);
  const runDir = fs.mkdtempSync(path.join(dataDir, 'run-'));
  const s3rver = await startS3rverProcess(fs.mkdtempSync(path.join(runDir, 's3rver-')));
  const store = new S3ObjectStore({
    provider: 'aws',
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    region: 'us-east-1',
    endpoint: s3rver.endpoint,
  });
  await store.createBucket(BUCKET);
  const env = rcloneEnv(s3rver.endpoint);
  const cleanups: Array<() => Promise<void>> = [
    async () => {
      await store.close();
      await s3rver.stop();
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  ];
  try {
    console.log(
      `Folder: ${fileCount} files of ${fileKiB} KiB and ${bigCount} of ${bigMiB} MiB; s3rver ${s3rver.endpoint}`,
    );
    const rcloneUp = await timedRclone(['copy', folder, `s3rver:${BUCKET}/rclone/${folderName}`], env);
    const rcloneDownDir = path.join(runDir, 'rclone-down');
    const rcloneDown = await timedRclone(
      ['copy', `s3rver:${BUCKET}/rclone/${folderName}`, path.join(rcloneDownDir, folderName)],
      env,
    );
    const rcloneOk = sameDigests(sourceDigests, digests(path.join(rcloneDownDir, folderName)));
    fs.rmSync(rcloneDownDir, { recursive: true, force: true });
    console.log(
      `rclone: upload ${rcloneUp.seconds.toFixed(1)} s (${rcloneUp.peakRssMb.toFixed(0)} MB), download ` +
        `${rcloneDown.seconds.toFixed(1)} s (${rcloneDown.peakRssMb.toFixed(0)} MB), copy back ${rcloneOk ? 'identical' : 'DIFFERS'}`,
    );
    if (options.only === 'rclone') return rcloneOk ? 0 : 1;

    // The Cumulo server: the app in this process on a real port, an s3rver account connected through the API.
    await bundleAgent();
    const app = await startBenchApp(path.join(runDir, 'server'), {
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }),
      ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
    });
    cleanups.unshift(app.close);
    await app.app.listen({ port: SERVER_PORT, host: '127.0.0.1' });
    const serverUrl = `http://127.0.0.1:${SERVER_PORT}`;
    const { token, principal } = await signedInBenchMember(app.services, app.db);
    // The Owner confirmed the ftX charge (the page's "Ftx Transfer" modal), as bench/transfer does for c2c.
    await app.db.pool.query('update organizations set confirmed_ftx = true where id = $1', [
      principal.organizationId,
    ]);
    const api = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
      const answer = await fetch(`${serverUrl}/api${route}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const payload = (await answer.json()) as Record<string, unknown>;
      if (!answer.ok)
        throw new Error(`${method} ${route} answered ${answer.status}: ${JSON.stringify(payload)}`);
      return payload;
    };
    const account = await api('POST', '/cloudaccount/insert', {
      cloudType: 1,
      name: 'Bench s3rver',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    const accountId = String(account.id);

    // The agent as a user sets it up: its folders, then a pairing code made on /profile.
    const home = path.join(runDir, 'agent-home');
    const restore = path.join(runDir, 'agent-down');
    fs.mkdirSync(restore);
    await agentCommand(home, serverUrl, ['add', path.dirname(folder)]);
    await agentCommand(home, serverUrl, ['add', restore]);
    const { code } = (await api('POST', '/agent/pairing-codes')) as { code: string };
    console.log((await agentCommand(home, serverUrl, ['pair', code])).trim());
    const sourceRoot = path.basename(path.dirname(folder));

    const connect = async () => {
      const beat = (await agentCall('GET', '/heartbeat', null)) as { device_id: string };
      const { ticket } = (await api('POST', '/agent/tickets', { device_id: beat.device_id })) as {
        ticket: string;
      };
      const answer = (await agentCall('POST', '/connect', null, { ticket })) as {
        data: { connectionKey: string };
      };
      return answer.data.connectionKey;
    };

    // Upload, from a fresh agent process whose peak RSS is the upload's.
    let uploadFigures: (PeerRun & { output: string }) | null = null;
    if (options.only !== 'download') {
      const agent = await startAgent(home, serverUrl);
      const key = await connect();
      const started = performance.now();
      const upload = (await agentCall('POST', '/upload', key, {
        paths: [`/${sourceRoot}/${folderName}`],
        remoteDirectory: { cloud_account_id: accountId, bucket_name: BUCKET, path: 'agent/' },
      })) as { transferID: string };
      const uploaded = await waitForEnd(key, upload.transferID);
      const seconds = (performance.now() - started) / 1000;
      uploadFigures = { ...(await agent.stopped()), seconds };
      if (uploaded.status !== 'completed')
        throw new Error(`upload ended ${uploaded.status}: ${JSON.stringify(uploaded.transferErrors)}`);
    }

    // Download back, from another fresh agent process.
    const agent = await startAgent(home, serverUrl);
    const key = await connect();
    const started = performance.now();
    const download = (await agentCall('POST', '/download', key, {
      remotePaths: [`${uploadFigures ? 'agent' : 'rclone'}/${folderName}/`],
      cloud_account_id: accountId,
      bucket_name: BUCKET,
      localPath: `/${path.basename(restore)}`,
    })) as { transferID: string };
    const downloaded = await waitForEnd(key, download.transferID);
    const downloadSeconds = (performance.now() - started) / 1000;
    const downloadFigures = await agent.stopped();
    if (downloaded.status !== 'completed')
      throw new Error(`download ended ${downloaded.status}: ${JSON.stringify(downloaded.transferErrors)}`);
    const agentOk = sameDigests(sourceDigests, digests(path.join(restore, folderName)));
    console.log(`Agent copy back ${agentOk ? 'identical' : 'DIFFERS'} (${downloaded.filesDone} files)`);

    const upOk = uploadFigures ? line('Upload', uploadFigures, rcloneUp) : true;
    const downOk = line('Download', { ...downloadFigures, seconds: downloadSeconds }, rcloneDown);
    return upOk && downOk && agentOk && rcloneOk ? 0 : 1;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => console.error(error));
  }
}

process.exitCode = await main();
