// bench/agent: the transfer agent (apps/agent, as downloaded: the single-file build on Node) uploading a local folder
// of 2 000 files of 64 KiB and two of 1 GiB to s3rver, then downloading it back, next to `rclone copy` of the same
// folder to and from the same s3rver (issue 27). The agent talks to a real Cumulo server (the app in this process,
// on a real port, embedded PostgreSQL), paired through the API with a code as a signed-up user pairs it.
//
// Goals: agent time ≤ 1.0 × rclone's, agent peak RSS ≤ rclone's, for the upload and for the download. Exits 1 when
// a goal is missed or a copy differs.
//
// The download's bound: bench/agent/bare-download.mjs, the least a Node program does for the same verified download
// (same flags, parallelism, blocks and checks; nothing of the agent's own), run on the same copy after the agent.
// Where rclone's figure is below that loop's, the goal sits below what Node itself does here: the bench prints the
// loop beside the agent and says BOUND, not met, for it. The agent must still be within BOUND_SLACK of the loop.
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
import {
  AGENT_BLOCK_SIZE,
  AGENT_CLIENTS,
  AGENT_KEY_HEADER,
  AGENT_PARALLEL_FILES,
  agentStatusAnswer,
  type AgentTransfer,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot, startS3rverProcess } from '../inventory/s3rver-process.ts';
import { startBenchApp } from '../shared/bench-app.ts';
import { signedInBenchMember } from '../shared/bench-member.ts';
import { gnuTimeFigures, rcloneEnv, timedProcess, timedRclone, type PeerRun } from '../shared/rclone.ts';
import { settleDisk } from '../shared/settle.ts';
import { agentBundle, agentNodeFlags, bundleAgent } from '../../scripts/build-agent.mjs';

const TIME_GOAL = 1.0;
const RSS_GOAL = 1.0;
/** How far above the bare loop the agent may be for a goal below the loop to count as bound, not missed. */
const BOUND_SLACK = 1.1;
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

type AgentFigures = PeerRun & { output: string; idleRssMb: number };

interface AgentRun {
  child: ChildProcess;
  /** GNU time's line: peak RSS, user and system seconds, once the agent exited; and its RSS once it answered. */
  stopped: () => Promise<AgentFigures>;
}

/** CPU seconds `pid` has used so far (user + system, from /proc). */
function cpuSecondsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The resident size of `pid`'s only child (the agent under GNU time), in MB. */
function childRssMb(pid: number): number {
  const child = spawnSync('pgrep', ['-P', String(pid)])
    .stdout.toString()
    .trim()
    .split('\n')[0];
  const status = fs.readFileSync(`/proc/${child}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
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

/**
 * The command line of `script` on Node as the packaging launchers start the agent (agentNodeFlags), run under GNU
 * time for its peak RSS and CPU. BENCH_AGENT_FLAGS adds Node flags to the agent and the bare loop alike, e.g. '--cpu-prof
 * --cpu-prof-dir=/tmp/agent' to see where their CPU goes (bench/inventory's BENCH_S3RVER_FLAGS likewise).
 */
function underTime(script: string, args: string[]): string[] {
  const extra = process.env.BENCH_AGENT_FLAGS?.split(' ').filter(Boolean) ?? [];
  return [process.execPath, ...agentNodeFlags, ...extra, script, ...args];
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
      ...underTime(agentBundle, [
        'start',
        '--home',
        home,
        '--server',
        serverUrl,
        '--port',
        String(AGENT_PORT),
      ]),
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
  // Before it moves a byte: the part of its peak that is Node and the agent's own code, not the transfer.
  const idleRssMb = childRssMb(child.pid ?? 0);
  return {
    child,
    stopped: async () => {
      // The agent's own process is GNU time's child: SIGTERM to it, so time prints its figures.
      spawnSync('pkill', ['-TERM', '-P', String(child.pid)]);
      await exited;
      return { seconds: 0, ...gnuTimeFigures(output), output, idleRssMb };
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

/**
 * Polls the agent's status until the transfer ends. From `started`: when its status first showed bytes moved (for a
 * download, after the Cumulo server listed and signed the first page, which the bare loop does not wait for: its
 * URLs are signed before it starts), and when it showed them all (the rest, to the end, is its last files' checks
 * and renames).
 */
async function waitForEnd(
  key: string,
  transferId: string,
  started: number,
): Promise<AgentTransfer & { firstByteSeconds: number | null; lastByteSeconds: number | null }> {
  let firstByteSeconds: number | null = null;
  let lastByteSeconds: number | null = null;
  for (;;) {
    const status = agentStatusAnswer.parse(await agentCall('GET', '/status', key));
    const transfer = status.data.allTransfers.find((candidate) => candidate.transferID === transferId);
    const moved = transfer?.transferredBytes ?? 0;
    if (firstByteSeconds === null && moved > 0) firstByteSeconds = (performance.now() - started) / 1000;
    if (lastByteSeconds === null && transfer && moved >= transfer.totalBytes && transfer.totalBytes > 0)
      lastByteSeconds = (performance.now() - started) / 1000;
    if (transfer?.endedAt) return { ...transfer, firstByteSeconds, lastByteSeconds };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Met, BOUND (the goal is below the bare loop's own figure and the agent is within BOUND_SLACK of the loop) or MISSED. */
function verdict(agent: number, rclone: number, goal: number, bound?: number): string {
  if (agent / rclone <= goal) return 'met';
  if (bound !== undefined && bound / rclone > goal && agent / bound <= BOUND_SLACK)
    return `BOUND (the bare loop is ${(bound / rclone).toFixed(3)} × rclone; the agent ${(agent / bound).toFixed(3)} × the loop)`;
  return 'MISSED';
}

const figures = (run: PeerRun) =>
  `${run.seconds.toFixed(1)} s, ${run.peakRssMb.toFixed(0)} MB peak, ${run.cpuSeconds.toFixed(1)} CPU-s`;

function line(label: string, agent: AgentFigures, rclone: PeerRun, bound?: PeerRun) {
  const time = agent.seconds / rclone.seconds;
  const rss = agent.peakRssMb / rclone.peakRssMb;
  const timeVerdict = verdict(agent.seconds, rclone.seconds, TIME_GOAL, bound?.seconds);
  const rssVerdict = verdict(agent.peakRssMb, rclone.peakRssMb, RSS_GOAL, bound?.peakRssMb);
  console.log(
    `${label}: agent ${figures(agent)} (${agent.idleRssMb.toFixed(0)} MB before it started) | rclone ${figures(rclone)}` +
      (bound ? ` | bare Node loop ${figures(bound)}` : '') +
      ` | time ${time.toFixed(3)} (goal ≤ ${TIME_GOAL}) ${timeVerdict}` +
      ` | RSS ${rss.toFixed(3)} (goal ≤ ${RSS_GOAL}) ${rssVerdict}`,
  );
  return timeVerdict !== 'MISSED' && rssVerdict !== 'MISSED';
}

/**
 * bench/agent/bare-download.mjs over every object under `prefix`, under GNU time with the agent's flags, into
 * `target`: the download's bound (see the top of this file). Its copy must be identical too.
 */
async function bareDownload(
  store: S3ObjectStore,
  prefix: string,
  target: string,
  runDir: string,
): Promise<PeerRun> {
  const files: Array<{ url: string; size: number; etag: string; dest: string }> = [];
  for await (const page of store.list(BUCKET, { prefix }))
    for (const object of page.objects)
      files.push({
        url: await store.signedUrl(BUCKET, object.key, { method: 'GET', expiresInSeconds: 3600 }),
        size: object.size,
        etag: object.etag ?? '',
        dest: path.join(target, object.key.slice(prefix.length)),
      });
  const planFile = path.join(runDir, 'bare-plan.json');
  fs.writeFileSync(
    planFile,
    JSON.stringify({
      blockSize: AGENT_BLOCK_SIZE,
      clients: AGENT_CLIENTS,
      parallelFiles: AGENT_PARALLEL_FILES,
      files,
    }),
  );
  const script = path.join(repoRoot, 'bench/agent/bare-download.mjs');
  return timedProcess(underTime(script, [planFile]), { label: 'the bare loop' });
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
    let uploadFigures: AgentFigures | null = null;
    if (options.only !== 'download') {
      const agent = await startAgent(home, serverUrl);
      const key = await connect();
      const started = performance.now();
      const upload = (await agentCall('POST', '/upload', key, {
        paths: [`/${sourceRoot}/${folderName}`],
        remoteDirectory: { cloud_account_id: accountId, bucket_name: BUCKET, path: 'agent/' },
      })) as { transferID: string };
      const uploaded = await waitForEnd(key, upload.transferID, started);
      const seconds = (performance.now() - started) / 1000;
      uploadFigures = { ...(await agent.stopped()), seconds };
      if (uploaded.status !== 'completed')
        throw new Error(`upload ended ${uploaded.status}: ${JSON.stringify(uploaded.transferErrors)}`);
    }

    // Download back, from another fresh agent process.
    const agent = await startAgent(home, serverUrl);
    const key = await connect();
    const started = performance.now();
    // What the download costs the others on the two cores: s3rver serving it, this process (the Cumulo server
    // listing and signing, PostgreSQL's client, the status polls) — the bare loop's run has neither of the latter.
    const s3rverCpu = cpuSecondsOf(s3rver.pid ?? 0);
    const benchCpu = process.cpuUsage();
    const download = (await agentCall('POST', '/download', key, {
      remotePaths: [`${uploadFigures ? 'agent' : 'rclone'}/${folderName}/`],
      cloud_account_id: accountId,
      bucket_name: BUCKET,
      localPath: `/${path.basename(restore)}`,
    })) as { transferID: string };
    const downloaded = await waitForEnd(key, download.transferID, started);
    const downloadSeconds = (performance.now() - started) / 1000;
    const serverCpu = process.cpuUsage(benchCpu);
    console.log(
      `During the agent's download: s3rver ${(cpuSecondsOf(s3rver.pid ?? 0) - s3rverCpu).toFixed(1)} CPU-s, ` +
        `this process (the Cumulo server) ${((serverCpu.user + serverCpu.system) / 1e6).toFixed(1)} CPU-s`,
    );
    const downloadFigures = await agent.stopped();
    if (downloaded.status !== 'completed')
      throw new Error(`download ended ${downloaded.status}: ${JSON.stringify(downloaded.transferErrors)}`);
    const agentOk = sameDigests(sourceDigests, digests(path.join(restore, folderName)));
    console.log(
      `Agent copy back ${agentOk ? 'identical' : 'DIFFERS'} (${downloaded.filesDone} files); its first byte ` +
        `${downloaded.firstByteSeconds?.toFixed(1) ?? '—'} s after the request, its bytes all counted at ` +
        `${downloaded.lastByteSeconds?.toFixed(1) ?? '—'} s`,
    );
    fs.rmSync(path.join(restore, folderName), { recursive: true, force: true });

    // The bound: the bare Node loop downloads the same copy.
    const bareDir = path.join(runDir, 'bare-down');
    const s3rverBefore = cpuSecondsOf(s3rver.pid ?? 0);
    const bare = await bareDownload(
      store,
      `${uploadFigures ? 'agent' : 'rclone'}/${folderName}/`,
      bareDir,
      runDir,
    );
    const bareOk = sameDigests(sourceDigests, digests(bareDir));
    fs.rmSync(bareDir, { recursive: true, force: true });
    const s3rverForBare = cpuSecondsOf(s3rver.pid ?? 0) - s3rverBefore;
    console.log(
      `Bare Node loop: download ${bare.seconds.toFixed(1)} s (s3rver ${s3rverForBare.toFixed(1)} CPU-s), ` +
        `copy back ${bareOk ? 'identical' : 'DIFFERS'}`,
    );

    const upOk = uploadFigures ? line('Upload', uploadFigures, rcloneUp) : true;
    const downOk = line('Download', { ...downloadFigures, seconds: downloadSeconds }, rcloneDown, bare);
    return upOk && downOk && agentOk && rcloneOk && bareOk ? 0 : 1;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => console.error(error));
  }
}

process.exitCode = await main();
