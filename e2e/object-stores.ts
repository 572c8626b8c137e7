// Run by global-setup.ts in its own process (s3rver needs --openssl-legacy-provider): starts s3rver and Azurite,
// prints their endpoints as one JSON line, and stops them when its stdin closes. s3rver's requests are counted per
// bucket and method (a HEAD on a key is a HeadObject), and a small HTTP server answers the counts, so a spec can
// check what the product asked of the store (e.g. that a sync cycle sends no HEAD per object).
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

const [s3rver, azurite] = await Promise.all([startRestartableS3rver({ hold: count }), startAzurite()]);
const requests = http.createServer((req, res) => {
  const bucket = new URL(req.url ?? '/', 'http://localhost').searchParams.get('bucket') ?? '';
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(Object.fromEntries(counts.get(bucket) ?? [])));
});
await new Promise<void>((resolve) => requests.listen(0, '127.0.0.1', resolve));
const requestsUrl = `http://127.0.0.1:${(requests.address() as AddressInfo).port}`;

process.stdout.write(
  `${JSON.stringify({ s3rver: s3rver.endpoint, azurite: azurite.endpoint, s3rverRequests: requestsUrl })}\n`,
);
process.stdin.resume();
process.stdin.on('end', () => {
  requests.close();
  void Promise.all([s3rver.stop(), azurite.stop()]).then(() => process.exit(0));
});
