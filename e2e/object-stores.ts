// Run by global-setup.ts, once per store, each in its own process (s3rver needs --openssl-legacy-provider):
// `object-stores.ts s3rver` or `object-stores.ts azurite` starts that store, prints its endpoint as one JSON line,
// and stops it when its stdin closes. Two processes, so that a spec seeding thousands of objects into s3rver does
// not hold Azurite's answers behind them on one event loop (an Azure account's connect once waited over 10 s
// for its check while the c2c spec seeded its source). s3rver's requests are counted per bucket and method (a HEAD
// on a key is a HeadObject), and a small HTTP server answers the counts, so a spec can check what the product
// asked of the store (e.g. that a sync cycle sends no HEAD per object).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAzurite, startRestartableS3rver, type S3rverRequest } from '@cumulo/storage/testing';

/** bucket → "METHOD object" | "METHOD bucket" → count. */
const counts = new Map<string, Map<string, number>>();

function count(request: S3rverRequest) {
  const [bucket = '', ...key] = request.path.replace(/^\/+/, '').split('/');
  const kind = `${request.method} ${key.join('/') ? 'object' : 'bucket'}`;
  const byKind = counts.get(bucket) ?? new Map<string, number>();
  byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  counts.set(bucket, byKind);
  return undefined;
}

const which = process.argv[2];
if (which === 'azurite') {
  const azurite = await startAzurite();
  process.stdout.write(`${JSON.stringify({ azurite: azurite.endpoint })}\n`);
  stopOnStdinEnd(() => azurite.stop());
} else if (which === 's3rver') {
  const s3rver = await startRestartableS3rver({ hold: count });
  const requests = http.createServer((req, res) => {
    const bucket = new URL(req.url ?? '/', 'http://localhost').searchParams.get('bucket') ?? '';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(Object.fromEntries(counts.get(bucket) ?? [])));
  });
  await new Promise<void>((resolve) => requests.listen(0, '127.0.0.1', resolve));
  const requestsUrl = `http://127.0.0.1:${(requests.address() as AddressInfo).port}`;
  process.stdout.write(`${JSON.stringify({ s3rver: s3rver.endpoint, s3rverRequests: requestsUrl })}\n`);
  stopOnStdinEnd(() => {
    requests.close();
    return s3rver.stop();
  });
} else {
  throw new Error(`object-stores.ts takes s3rver or azurite, not ${String(which)}`);
}

function stopOnStdinEnd(stop: () => Promise<unknown>) {
  process.stdin.resume();
  process.stdin.on('end', () => {
    void stop().then(() => process.exit(0));
  });
}
