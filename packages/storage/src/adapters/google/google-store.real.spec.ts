import { randomUUID } from 'node:crypto';
import { objectStoreContract } from '../../testing/object-store-contract.ts';
import { GoogleObjectStore } from './google-store.ts';

/*
 * The shared contract against real Google Cloud Storage. The root vitest.config.ts includes this file only when
 * GCS_TEST_CREDENTIALS_JSON (a service-account key) and GCS_TEST_BUCKET_PREFIX are set, since no GCS emulator
 * can be installed here; the recorded-fixture tests cover the request shapes in every run.
 */
const credentialsJson = process.env.GCS_TEST_CREDENTIALS_JSON ?? '';
const bucketPrefix = process.env.GCS_TEST_BUCKET_PREFIX ?? '';

objectStoreContract(
  'Google adapter against real GCS',
  async () => {
    const store = new GoogleObjectStore({ provider: 'google', credentialsJson }, { maxAttempts: 3 });
    const bucket = `${bucketPrefix}-${randomUUID().slice(0, 8)}`;
    await store.createBucket(bucket);
    return {
      store,
      bucket,
      missingBucket: `${bucketPrefix}-missing-${randomUUID().slice(0, 8)}`,
      // Buckets are emptied and removed so repeated runs do not pile up billable storage.
      cleanup: async () => {
        const { Storage } = await import('@google-cloud/storage');
        const key = JSON.parse(credentialsJson) as { project_id: string };
        const admin = new Storage({
          credentials: JSON.parse(credentialsJson) as object,
          projectId: key.project_id,
        });
        for (const name of [bucket, `${bucket}-new`]) {
          const target = admin.bucket(name);
          const [exists] = await target.exists();
          if (!exists) continue;
          await target.deleteFiles({ force: true });
          await target.delete();
        }
      },
    };
    // GCS resumable sessions take chunks in order only: no `parts` (see GoogleObjectStore's constructor).
  },
  { parts: false },
);
