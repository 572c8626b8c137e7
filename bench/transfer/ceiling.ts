// The ceiling (issue 5 benchmark e): the same objects written to the destination by a bare client (the AWS SDK,
// bodies already in memory, nothing read from a source) at the same concurrency Cumulo copies with. Cumulo's
// throughput divided by this one says how close the engine comes to what the destination can take.
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { settleDisk } from '../shared/settle.ts';

function clientFor(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

async function inParallel<T>(items: T[], limit: number, run: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await run(items[next++] as T);
    }),
  );
}

/** Seconds to PUT each object (`bodyOf(i)` for keys[i]) with `concurrency` requests in flight. */
export async function bareSmallWrites(
  endpoint: string,
  bucket: string,
  keys: string[],
  bodyOf: (index: number) => Buffer,
  concurrency: number,
): Promise<number> {
  const client = clientFor(endpoint);
  const bodies = keys.map((_, i) => bodyOf(i));
  settleDisk();
  const started = performance.now();
  await inParallel(
    keys.map((key, i) => ({ key, body: bodies[i] as Buffer })),
    concurrency,
    async ({ key, body }) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
  );
  const seconds = (performance.now() - started) / 1000;
  client.destroy();
  return seconds;
}

/** Seconds to write each large body as a multipart upload of `partSize` parts, `partsInFlight` per object. */
export async function bareLargeWrites(
  endpoint: string,
  bucket: string,
  objects: Array<{ key: string; body: Buffer }>,
  partSize: number,
  partsInFlight: number,
): Promise<number> {
  const client = clientFor(endpoint);
  settleDisk();
  const started = performance.now();
  await Promise.all(
    objects.map((object) =>
      new Upload({
        client,
        params: { Bucket: bucket, Key: object.key, Body: object.body },
        partSize,
        queueSize: partsInFlight,
      }).done(),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  client.destroy();
  return seconds;
}
