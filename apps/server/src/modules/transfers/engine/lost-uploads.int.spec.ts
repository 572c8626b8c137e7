import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, type ObjectStoreCapabilities } from '@cumulo/storage';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import { createLogger } from '../../../logger.ts';
import {
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../../test/harness.ts';
import type { CopyItem, CopyTask } from './copy-task.ts';
import { DEFAULT_TRANSFER_MEMORY, MemoryBudget } from './memory-budget.ts';
import { ObjectCopier } from './object-copier.ts';
import { sweepTransfers } from './sweep.ts';
import { ThrottleGates } from './throttle.ts';

/**
 * An upload the store opened while its answer was lost (the connection cut after the store acted, as when a store
 * goes down under a copy: transfers-outage.int.spec.ts meets it by chance) is named by no ledger. The copy notes
 * when it asked; once the item has settled, the sweep finds the upload among the key's uploads in progress and
 * aborts it, and leaves those it cannot call lost: another copy's, one opened at another time. Real s3rver and
 * PostgreSQL; the lost answer is played by a wrapper of the store's `parts.start` that opens the upload, then
 * throws the error a reset connection gives.
 */
const MiB = 1024 * 1024;
const BUCKET = 'lost-uploads';
const OWNER = 'host:1:job';
let s3rver: S3rverServer;
let server: TestServer;
let store: S3ObjectStore;
let accountId: string;
let batchId: string;

type Parts = NonNullable<ObjectStoreCapabilities['parts']>;

async function insertItem(sourceKey: string, destinationKey: string, status: string): Promise<number> {
  const { rows } = await server.db.pool.query<{ id: string }>(
    `insert into transfer_items (batch_id, source_key, destination_key, size, status, lease_owner, lease_until)
     values ($1, $2, $3, $4, $5, case when $5 = 'copying' then $6 end,
       case when $5 = 'copying' then now() + interval '1 minute' end)
     returning id`,
    [batchId, sourceKey, destinationKey, 9 * MiB, status, OWNER],
  );
  return Number(rows[0]?.id);
}

async function lostWindow(itemId: number) {
  const { rows } = await server.db.pool.query<{
    lost_upload_from: Date | null;
    lost_upload_until: Date | null;
  }>('select lost_upload_from, lost_upload_until from transfer_items where id = $1', [itemId]);
  return rows[0];
}

const sweep = () =>
  sweepTransfers({
    repo: server.services.transfersRepo,
    itemQueue: server.services.transferQueueRepo,
    executor: server.services.transferExecutor,
    accounts: server.services.cloudAccountsRepo,
    stores: server.services.stores,
    copier: server.services.transferCopier,
    enqueue: async () => undefined,
    log: createLogger('silent'),
  });

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  const owner = await signedInMember(server, 'lost-uploads');
  accountId = await connectS3rverAccount(server, owner.token, 'Dst');
  store = s3rverStore(s3rver.endpoint);
  await store.createBucket(BUCKET);
  const { rows } = await server.db.pool.query<{ id: string }>(
    `insert into transfer_batches (organization_id, operation, source_cloud_account_id, source_bucket,
       destination_cloud_account_id, destination_bucket, status, phase, total_number, total_size)
     values ($1, 'copy', $2, $3, $2, $3, 2, 'copying', 3, 0)
     returning id`,
    [owner.principal.organizationId, accountId, BUCKET],
  );
  batchId = String(rows[0]?.id);
}, 120_000);

afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('uploads the store opened without the answer reaching the worker (s3rver)', () => {
  it('are aborted by the sweep once their item has settled; uploads another copy records or opened at another time stay', async () => {
    const body = randomBytes(9 * MiB);
    await store.write(BUCKET, 'source/big.bin', body, { size: body.length });
    const itemId = await insertItem('source/big.bin', 'copy/big.bin', 'copying');

    const parts = store.capabilities.parts as Parts;
    const opened: string[] = [];
    const answerLost: Parts = {
      ...parts,
      start: async (bucket, key, options) => {
        opened.push(await parts.start(bucket, key, options));
        throw new StorageError(
          'Network',
          'The provider could not be reached: the connection was reset',
          'aws',
        );
      },
    };
    const destination = Object.create(store, {
      capabilities: { value: { ...store.capabilities, parts: answerLost } },
    }) as S3ObjectStore;
    const item: CopyItem = {
      id: itemId,
      sourceKey: 'source/big.bin',
      destinationKey: 'copy/big.bin',
      size: body.length,
      sourceEtag: null,
      sourceMd5: null,
      method: null,
      uploadId: null,
      partSize: null,
    };
    const task: CopyTask = {
      item,
      // Two endpoints of one store: the bytes go through the worker, in parts.
      source: { store, accountId, bucket: BUCKET, endpointKey: 'source' },
      destination: { store: destination, accountId, bucket: BUCKET, endpointKey: 'destination' },
      ledger: server.services.transferQueueRepo.ledger(OWNER),
      signal: new AbortController().signal,
      onBytes: () => undefined,
    };
    const copier = new ObjectCopier({
      memory: new MemoryBudget(DEFAULT_TRANSFER_MEMORY),
      gates: new ThrottleGates(),
    });
    await expect(copier.copyObject(task)).rejects.toThrow(/The provider could not be reached/);
    expect(opened.length).toBe(1);
    const lostId = opened[0] as string;
    expect((await lostWindow(itemId))?.lost_upload_from).not.toBeNull();

    // Another copy of the same key (say, the retry batch's) opened its upload meanwhile and recorded it.
    const recordedId = await parts.start(BUCKET, 'copy/big.bin', {});
    const otherItemId = await insertItem('elsewhere/big.bin', 'copy/big.bin', 'copying');
    await server.db.pool.query('update transfer_items set upload_id = $2, part_size = $3 where id = $1', [
      otherItemId,
      recordedId,
      8 * MiB,
    ]);
    // A failed item whose lost opening was an hour ago: an upload of its key opened now is someone else's.
    const foreignId = await parts.start(BUCKET, 'copy/other.bin', {});
    const oldItemId = await insertItem('source/other.bin', 'copy/other.bin', 'failed');
    await server.db.pool.query(
      `update transfer_items set lost_upload_from = now() - interval '1 hour',
         lost_upload_until = now() - interval '59 minutes' where id = $1`,
      [oldItemId],
    );

    // While the item is still being copied, its successor may yet be using what the store holds: nothing goes.
    await sweep();
    const byId = async () => (await s3rver.openUploads(BUCKET)).map((upload) => upload.uploadId).sort();
    expect(await byId()).toEqual([lostId, recordedId, foreignId].sort());
    expect((await lostWindow(itemId))?.lost_upload_from).not.toBeNull();
    expect(await lostWindow(oldItemId)).toEqual({ lost_upload_from: null, lost_upload_until: null });

    // The item fails (its store stayed unreachable): the next sweep aborts the upload no ledger names.
    await server.db.pool.query(
      `update transfer_items set status = 'failed', lease_owner = null, lease_until = null where id = $1`,
      [itemId],
    );
    await sweep();
    expect(await byId()).toEqual([recordedId, foreignId].sort());
    expect(await lostWindow(itemId)).toEqual({ lost_upload_from: null, lost_upload_until: null });
  }, 120_000);
});
