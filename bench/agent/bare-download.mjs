// The bound of bench/agent's download: the least a Node program does to make the agent's verified download, and
// nothing else. Same Node, same flags (the launchers' agentNodeFlags), same parallelism (AGENT_PARALLEL_FILES files,
// AGENT_CLIENTS Range GETs of AGENT_BLOCK_SIZE per file), node:http with keep-alive as the agent, an MD5 of every
// block checked against the object's ETag (plain or multipart), the bytes written at their place in 256 KiB writevs.
// No state file, no progress, no path checks, no part file and rename, no Cumulo server: what the agent spends above
// this loop is its own; what this loop spends above rclone is Node's.
//
//   node <agentNodeFlags> bench/agent/bare-download.mjs <plan.json>
//   plan.json: { "blockSize": n, "clients": n, "parallelFiles": n, "files": [{ "url", "size", "etag", "dest" }] }
//
// Plain JavaScript so that it runs on node alone, as the agent's bundle does (no loader in the measured process).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const WRITE_BATCH = 256 * 1024;
const made = new Set();

function get(url, headers) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers });
    request.once('response', resolve);
    request.once('error', reject);
  });
}

async function writeAll(handle, buffers, position) {
  let rest = buffers;
  let at = position;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest, at);
    at += bytesWritten;
    let skip = bytesWritten;
    const next = [];
    for (const buffer of rest) {
      if (skip >= buffer.length) skip -= buffer.length;
      else {
        next.push(skip > 0 ? buffer.subarray(skip) : buffer);
        skip = 0;
      }
    }
    rest = next;
  }
  return at;
}

async function block(file, handle, index) {
  const start = index * plan.blockSize;
  const length = Math.min(plan.blockSize, file.size - start);
  const whole = length === file.size;
  const response = await get(file.url, whole ? {} : { range: `bytes=${start}-${start + length - 1}` });
  if (response.statusCode !== (whole ? 200 : 206))
    throw new Error(`${file.dest}: HTTP ${response.statusCode}`);
  const hash = createHash('md5');
  let written = start;
  let pending = [];
  let held = 0;
  for await (const chunk of response) {
    hash.update(chunk);
    pending.push(chunk);
    held += chunk.length;
    if (held >= WRITE_BATCH) {
      written = await writeAll(handle, pending, written);
      pending = [];
      held = 0;
    }
  }
  written = await writeAll(handle, pending, written);
  if (written !== start + length) throw new Error(`${file.dest}: ${written - start} of ${length} bytes`);
  return hash.digest();
}

async function md5Of(file) {
  const hash = createHash('md5');
  const handle = await open(file, 'r');
  for await (const chunk of handle.createReadStream()) hash.update(chunk);
  return hash.digest('hex');
}

async function one(file) {
  const folder = path.dirname(file.dest);
  if (!made.has(folder)) {
    mkdirSync(folder, { recursive: true });
    made.add(folder);
  }
  const handle = await open(file.dest, 'w');
  const blocks = Math.max(1, Math.ceil(file.size / plan.blockSize));
  const md5s = new Array(blocks);
  let next = 0;
  const client = async () => {
    for (let index = next++; index < blocks; index = next++) md5s[index] = await block(file, handle, index);
  };
  await Promise.all(Array.from({ length: Math.min(plan.clients, blocks) }, client));
  await handle.close();
  const etag = file.etag.toLowerCase();
  let got;
  if (etag.includes('-')) got = `${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${blocks}`;
  else if (blocks === 1) got = md5s[0].toString('hex');
  // An object written in one request (a plain MD5 ETag) but read in several blocks: one more pass over the file.
  else got = await md5Of(file.dest);
  if (got !== etag) throw new Error(`${file.dest}: ETag ${etag}, blocks give ${got}`);
}

let next = 0;
const worker = async () => {
  for (let index = next++; index < plan.files.length; index = next++) await one(plan.files[index]);
};
await Promise.all(Array.from({ length: plan.parallelFiles }, worker));
console.log(`bare loop: ${plan.files.length} files verified`);
