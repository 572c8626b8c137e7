// bench/agent: the transfer agent (apps/agent, as downloaded: the single-file build on Node) uploading a local folder
// of 2 000 files of 64 KiB and two of 1 GiB to s3rver, then downloading it back, next to `rclone copy` of the same
// folder to and from the same s3rver (issue 27). The agent talks to a real Cumulo server (the app in this process,
// on a real port, embedded PostgreSQL), paired through the API with a code as a signed-up user pairs it.
//
// Goals: agent time ≤ 1.0 × rclone's, agent peak RSS ≤ rclone's, for the upload and for the download. Each figure
// is the median of --rounds rounds (3), reported as issue 29's benches report theirs (bench/shared/goal-table.ts):
// PASS, BOUND or FAIL per row, with every round's raw numbers underneath. In round 1 the agent goes first, in round
// 2 rclone, and so on; each round copies into a bucket of its own. Exits 1 when a row FAILs or a copy differs.
//
// The download's bound: bench/agent/bare-download.mjs, the least a Node program does for the same verified download
// (same flags, parallelism, blocks and checks; nothing of the agent's own), run on the agent's copy after both tools
// in every round. Where rclone's figure is below that loop's, the goal sits below what Node itself does here: the
// row is BOUND, not met, when the agent is within 1.1 × the loop. The upload's memory floor is the agent's own RSS
// before it moved a byte (Node and the agent's code); its time has none below rclone's.
//
//   npx tsx bench/agent/run.ts [--rounds 3] [--files 2000 --file-kib 64 --big 2 --big-mib 1024]
//     [--only rclone|download] [--server-port 4611 --agent-port 47450]
//
// `--only download` skips the agent's upload: the agent downloads the copy rclone uploaded (same bytes, 5 MiB
// multipart parts as the agent's own), for working on the download alone; rclone uploads first in every round,
// then the two downloads take turns as the tools do in a full run; the full run is the one to report. `--only rclone` runs rclone's copies alone.
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
import { median, printTable, type GoalRow } from '../shared/goal-table.ts';
import { gnuTimeFigures, rcloneEnv, timedProcess, timedRclone, type PeerRun } from '../shared/rclone.ts';
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
    rounds: { type: 'string', default: '3' },
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
const roundCount = Number(options.rounds);
if (![fileCount, fileKiB, bigCount, bigMiB].every((n) => Number.isInteger(n) && n >= 0))
  throw new Error('bad --files, --file-kib, --big or --big-mib');
if (!Number.isInteger(roundCount) || roundCount < 1) throw new Error('--rounds is a whole number from 1');

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

/**
 * bench/agent/bare-download.mjs over every object under `prefix`, under GNU time with the agent's flags, into
 * `target`: the download's bound (see the top of this file). Its copy must be identical too.
 */
async function bareDownload(
  store: S3ObjectStore,
  bucket: string,
  prefix: string,
  target: string,
  runDir: string,
): Promise<PeerRun> {
  const files: Array<{ url: string; size: number; etag: string; dest: string }> = [];
  for await (const page of store.list(bucket, { prefix }))
    for (const object of page.objects)
      files.push({
        url: await store.signedUrl(bucket, object.key, { method: 'GET', expiresInSeconds: 3600 }),
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

/** One round's figures: both tools each way, the bare loop on the agent's copy, and whether every copy matched. */
interface Round {
  rcloneUp: PeerRun;
  rcloneDown: PeerRun;
  /** Null under `--only download`. */
  agentUp: AgentFigures | null;
  agentDown: AgentFigures;
  bare: PeerRun;
  /** The copies back that differed from the folder ('rclone', 'agent', 'the bare loop'); empty when all matched. */
  differing: string[];
}

const s = (seconds: number) => `${seconds.toFixed(1)} s`;
const mb = (value: number) => `${value.toFixed(0)} MB`;
const medianOf = <R>(rounds: R[], pick: (round: R) => number) => median(rounds.map(pick));
/** Who went first in round `index` (0-based): the agent in rounds 1, 3, …, rclone in 2, 4, …. */
const agentFirst = (index: number) => index % 2 === 0;
/** Under --only download, rclone's upload comes first (the agent downloads it); the downloads take turns alike. */
const agentDownloadsFirst = agentFirst;
const orderText = (index: number) =>
  options.only === 'download'
    ? `round ${index + 1} (rclone's upload, then the ${agentDownloadsFirst(index) ? 'agent' : 'rclone'} download first)`
    : `round ${index + 1} (${agentFirst(index) ? 'agent' : 'rclone'} first)`;

/** A time row against rclone; its floor is the cheaper of `floor` (the bare loop's time) and rclone's own. */
function timeRow<R extends Round>(
  name: string,
  rounds: R[],
  agent: (round: R) => number,
  rclone: (round: R) => number,
  floor?: (round: R) => number,
): GoalRow {
  const agentSeconds = medianOf(rounds, agent);
  const rcloneSeconds = medianOf(rounds, rclone);
  const floorSeconds = floor ? medianOf(rounds, floor) : Number.POSITIVE_INFINITY;
  return {
    name: `${name} time`,
    figure: agentSeconds / rcloneSeconds,
    goal: { direction: 'at most', value: TIME_GOAL },
    unit: "× rclone's time",
    detail:
      `agent ${s(agentSeconds)}, rclone ${s(rcloneSeconds)}` +
      (floor ? `, bare Node loop ${s(floorSeconds)}` : ''),
    floor: {
      figure: Math.min(floorSeconds, rcloneSeconds) / rcloneSeconds,
      what:
        floorSeconds < rcloneSeconds
          ? 'the bare Node loop'
          : floor
            ? 'rclone (faster than the bare Node loop here)'
            : 'rclone (no cheaper client is measured for this direction)',
    },
    rounds: rounds.map(
      (round, index) =>
        `${orderText(index)}: agent ${s(agent(round))}, rclone ${s(rclone(round))}` +
        (floor ? `, bare loop ${s(floor(round))}` : '') +
        `: ${(agent(round) / rclone(round)).toFixed(3)}`,
    ),
  };
}

/**
 * A peak RSS row against rclone's. Its floor is what any Node process doing the work holds: for the download, the
 * bare Node loop's peak; for the upload (no bare loop), the agent's own RSS before it moved a byte.
 */
function rssRow<R extends Round>(
  name: string,
  rounds: R[],
  agent: (round: R) => AgentFigures,
  rclone: (round: R) => PeerRun,
  floor: { pick: (round: R) => number; what: string },
): GoalRow {
  const agentMb = medianOf(rounds, (round) => agent(round).peakRssMb);
  const rcloneMb = medianOf(rounds, (round) => rclone(round).peakRssMb);
  const floorMb = medianOf(rounds, floor.pick);
  return {
    name: `${name} peak RSS`,
    figure: agentMb / rcloneMb,
    goal: { direction: 'at most', value: RSS_GOAL },
    unit: "× rclone's peak RSS",
    detail: `agent ${mb(agentMb)} (${mb(medianOf(rounds, (round) => agent(round).idleRssMb))} before it moved a byte), rclone ${mb(rcloneMb)}, ${floor.what} ${mb(floorMb)}`,
    floor: { figure: floorMb / rcloneMb, what: `${floor.what}, ${mb(floorMb)}` },
    rounds: rounds.map(
      (round, index) =>
        `${orderText(index)}: agent ${mb(agent(round).peakRssMb)}, rclone ${mb(rclone(round).peakRssMb)}, ${floor.what} ` +
        `${mb(floor.pick(round))}: ${(agent(round).peakRssMb / rclone(round).peakRssMb).toFixed(3)}`,
    ),
  };
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
      `Folder: ${fileCount} files of ${fileKiB} KiB and ${bigCount} of ${bigMiB} MiB; s3rver ${s3rver.endpoint}; ` +
        `${roundCount} round(s)`,
    );
    /** Whether the copy in `dir` is the folder, byte for byte; removes it. */
    const checked = (dir: string) => {
      const same = sameDigests(sourceDigests, digests(dir));
      fs.rmSync(dir, { recursive: true, force: true });
      return same;
    };

    /** rclone's copy of the folder up to `bucket`/rclone/ and back down. */
    const rcloneUpload = (bucket: string) =>
      timedRclone(['copy', folder, `s3rver:${bucket}/rclone/${folderName}`], env);
    const rcloneDownload = async (bucket: string) => {
      const downDir = path.join(runDir, 'rclone-down');
      const down = await timedRclone(
        ['copy', `s3rver:${bucket}/rclone/${folderName}`, path.join(downDir, folderName)],
        env,
      );
      return { down, same: checked(path.join(downDir, folderName)) };
    };
    const rcloneSaid = (up: PeerRun, down: PeerRun, same: boolean) =>
      console.log(
        `  rclone: upload ${s(up.seconds)} (${mb(up.peakRssMb)}), download ${s(down.seconds)} ` +
          `(${mb(down.peakRssMb)}), copy back ${same ? 'identical' : 'DIFFERS'}`,
      );
    const rcloneTurn = async (bucket: string) => {
      const up = await rcloneUpload(bucket);
      const { down, same } = await rcloneDownload(bucket);
      rcloneSaid(up, down, same);
      return { up, down, same };
    };

    if (options.only === 'rclone') {
      let same = true;
      for (let index = 0; index < roundCount; index += 1) {
        const bucket = `${BUCKET}-r${index + 1}`;
        await store.createBucket(bucket);
        console.log(`round ${index + 1}, bucket ${bucket}:`);
        same = (await rcloneTurn(bucket)).same && same;
      }
      return same ? 0 : 1;
    }

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

    /**
     * The agent's upload of the folder to `bucket`/agent/ (skipped under --only download) and its download of it
     * back (of rclone's copy under --only download), each from a fresh agent process whose peak RSS is that phase's.
     */
    const agentTurn = async (bucket: string) => {
      let up: AgentFigures | null = null;
      if (options.only !== 'download') {
        const agent = await startAgent(home, serverUrl);
        const key = await connect();
        const started = performance.now();
        const upload = (await agentCall('POST', '/upload', key, {
          paths: [`/${sourceRoot}/${folderName}`],
          remoteDirectory: { cloud_account_id: accountId, bucket_name: bucket, path: 'agent/' },
        })) as { transferID: string };
        const uploaded = await waitForEnd(key, upload.transferID, started);
        const seconds = (performance.now() - started) / 1000;
        up = { ...(await agent.stopped()), seconds };
        if (uploaded.status !== 'completed')
          throw new Error(`upload ended ${uploaded.status}: ${JSON.stringify(uploaded.transferErrors)}`);
      }
      const agent = await startAgent(home, serverUrl);
      const key = await connect();
      const started = performance.now();
      // What the download costs the others on the two cores: s3rver serving it, this process (the Cumulo server
      // listing and signing, PostgreSQL's client, the status polls) — the bare loop's run has neither of the latter.
      const s3rverCpu = cpuSecondsOf(s3rver.pid ?? 0);
      const benchCpu = process.cpuUsage();
      const download = (await agentCall('POST', '/download', key, {
        remotePaths: [`${up ? 'agent' : 'rclone'}/${folderName}/`],
        cloud_account_id: accountId,
        bucket_name: bucket,
        localPath: `/${path.basename(restore)}`,
      })) as { transferID: string };
      const downloaded = await waitForEnd(key, download.transferID, started);
      const seconds = (performance.now() - started) / 1000;
      const serverCpu = process.cpuUsage(benchCpu);
      const s3rverSpent = cpuSecondsOf(s3rver.pid ?? 0) - s3rverCpu;
      const down = { ...(await agent.stopped()), seconds };
      if (downloaded.status !== 'completed')
        throw new Error(`download ended ${downloaded.status}: ${JSON.stringify(downloaded.transferErrors)}`);
      const same = checked(path.join(restore, folderName));
      console.log(
        `  agent: ` +
          (up ? `upload ${s(up.seconds)} (${mb(up.peakRssMb)}, ${up.cpuSeconds.toFixed(1)} CPU-s), ` : '') +
          `download ${s(down.seconds)} (${mb(down.peakRssMb)}, ${down.cpuSeconds.toFixed(1)} CPU-s; ` +
          `${mb(down.idleRssMb)} before it moved a byte), copy back ${same ? 'identical' : 'DIFFERS'} ` +
          `(${downloaded.filesDone} files); its first byte ${downloaded.firstByteSeconds?.toFixed(1) ?? '—'} s ` +
          `after the request, its bytes all counted at ${downloaded.lastByteSeconds?.toFixed(1) ?? '—'} s; ` +
          `during its download s3rver spent ${s3rverSpent.toFixed(1)} CPU-s and this process (the Cumulo ` +
          `server) ${((serverCpu.user + serverCpu.system) / 1e6).toFixed(1)} CPU-s`,
      );
      return { up, down, same };
    };

    const rounds: Round[] = [];
    for (let index = 0; index < roundCount; index += 1) {
      // Each round in a bucket of its own, so no round lists or writes among another's objects.
      const bucket = `${BUCKET}-r${index + 1}`;
      await store.createBucket(bucket);
      console.log(`${orderText(index)}, bucket ${bucket}:`);
      let rclone: Awaited<ReturnType<typeof rcloneTurn>>;
      let agent: Awaited<ReturnType<typeof agentTurn>>;
      if (options.only === 'download') {
        // The agent downloads rclone's upload, so that goes first; the two downloads then take turns.
        const up = await rcloneUpload(bucket);
        let down: Awaited<ReturnType<typeof rcloneDownload>>;
        if (agentDownloadsFirst(index)) {
          agent = await agentTurn(bucket);
          down = await rcloneDownload(bucket);
        } else {
          down = await rcloneDownload(bucket);
          agent = await agentTurn(bucket);
        }
        rcloneSaid(up, down.down, down.same);
        rclone = { up, ...down };
      } else if (agentFirst(index)) {
        agent = await agentTurn(bucket);
        rclone = await rcloneTurn(bucket);
      } else {
        rclone = await rcloneTurn(bucket);
        agent = await agentTurn(bucket);
      }
      // The bound, after both tools: the bare Node loop downloads the copy the agent downloaded.
      const bareDir = path.join(runDir, 'bare-down');
      const s3rverBefore = cpuSecondsOf(s3rver.pid ?? 0);
      const bare = await bareDownload(
        store,
        bucket,
        `${agent.up ? 'agent' : 'rclone'}/${folderName}/`,
        bareDir,
        runDir,
      );
      const s3rverForBare = cpuSecondsOf(s3rver.pid ?? 0) - s3rverBefore;
      const bareSame = checked(bareDir);
      console.log(
        `  bare Node loop: download ${s(bare.seconds)} (${mb(bare.peakRssMb)}, ${bare.cpuSeconds.toFixed(1)} CPU-s; ` +
          `s3rver ${s3rverForBare.toFixed(1)} CPU-s), copy back ${bareSame ? 'identical' : 'DIFFERS'}`,
      );
      rounds.push({
        rcloneUp: rclone.up,
        rcloneDown: rclone.down,
        agentUp: agent.up,
        agentDown: agent.down,
        bare,
        differing: [
          ...(rclone.same ? [] : ['rclone']),
          ...(agent.same ? [] : ['agent']),
          ...(bareSame ? [] : ['the bare loop']),
        ],
      });
    }

    const differing = [...new Set(rounds.flatMap((round) => round.differing))];
    const invalid = differing.length
      ? `a copy back differed from the folder (${differing.join(', ')})`
      : undefined;
    const rows: GoalRow[] = [];
    const uploads = rounds.filter(
      (round): round is Round & { agentUp: AgentFigures } => round.agentUp !== null,
    );
    if (uploads.length === rounds.length && rounds.length > 0)
      rows.push(
        timeRow(
          'Upload',
          uploads,
          (round) => round.agentUp.seconds,
          (round) => round.rcloneUp.seconds,
        ),
        rssRow(
          'Upload',
          uploads,
          (round) => round.agentUp,
          (round) => round.rcloneUp,
          {
            pick: (round) => round.agentUp.idleRssMb,
            what: 'the agent before it moved a byte',
          },
        ),
      );
    rows.push(
      timeRow(
        'Download',
        rounds,
        (round) => round.agentDown.seconds,
        (round) => round.rcloneDown.seconds,
        (round) => round.bare.seconds,
      ),
      rssRow(
        'Download',
        rounds,
        (round) => round.agentDown,
        (round) => round.rcloneDown,
        {
          pick: (round) => round.bare.peakRssMb,
          what: "the bare Node loop's peak",
        },
      ),
    );
    const passed = printTable(
      `Issue 27: the agent against rclone copy, ${fileCount} × ${fileKiB} KiB + ${bigCount} × ${bigMiB} MiB to and ` +
        `from s3rver, medians of ${rounds.length} round(s)`,
      rows.map((row) => ({ ...row, invalid })),
    );
    return passed ? 0 : 1;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => console.error(error));
  }
}

process.exitCode = await main();
