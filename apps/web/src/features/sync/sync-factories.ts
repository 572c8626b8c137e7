import type { SyncCycle, SyncJob, UserProfile } from '@cumulo/contract';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { AWS_ID, WASABI_ID, accounts } from '../migration/migration-test-kit.ts';

export const JOB_ID = '7d2f5a10-3b4c-4d5e-8f60-718293a4b5c6';
export const CYCLE_ID = '9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a';

/** A cycle as GET /sync/cycles and the `sync.cycle` message carry it. */
export function buildSyncCycle(overrides: Partial<SyncCycle> = {}): SyncCycle {
  return {
    id: CYCLE_ID,
    syncJobId: JOB_ID,
    trigger: 'manual',
    dryRun: false,
    status: 0,
    phase: 'diffing',
    batchId: null,
    sourceCount: 0,
    destinationCount: 0,
    copyCount: 0,
    copyBytes: 0,
    unchangedCount: 0,
    deleteCount: 0,
    deleteBytes: 0,
    deletedCount: 0,
    approval: null,
    decidedBy: null,
    decidedAt: null,
    sample: null,
    error: null,
    startedAt: '2025-06-03T09:30:00.000Z',
    finishedAt: null,
    ...overrides,
  };
}

/** A job of GET /sync/get_jobs: Main AWS/photos to Cold Wasabi/archive, daily, active. */
export function buildSyncJob(
  info: Partial<SyncJob['info']> = {},
  overrides: Partial<Omit<SyncJob, 'info'>> = {},
): SyncJob {
  return {
    info: {
      id: JOB_ID,
      kind: 'sync',
      sourceCloudAccount: { id: AWS_ID, name: 'Main AWS', provider: 'aws' },
      sourceBucket: 'photos',
      sourcePath: '',
      destinationCloudAccount: { id: WASABI_ID, name: 'Cold Wasabi', provider: 'wasabi' },
      destinationBucket: 'archive',
      destinationPath: '',
      frequency: 1,
      operation: 1,
      createDate: '2025-06-01T08:00:00.000Z',
      createdBy: buildProfile().id,
      allowDelete: false,
      active: true,
      quarantineDays: null,
      deleteThresholdCount: 100,
      deleteThresholdPercent: 10,
      nextRun: '2025-06-04T00:00:00.000Z',
      ...info,
    },
    lastCycle: null,
    lastError: null,
    liveCycle: null,
    ...overrides,
  };
}

/** Members of an organisation that has confirmed the transfer charge (a job needs it, like a transfer). */
const organization = { ...buildProfile().organization, confirmed_c2c: true };
export const syncProfiles = {
  owner: buildProfile({ organization }),
  admin: buildProfile({ organization, role: { id: 2, title: 'Admin' } }),
  member: buildProfile({ organization, role: { id: 3, title: 'User' } }),
};

/** The calls the sync screens make on load (profile, accounts, jobs), plus `extra`; answers the recorded calls. */
export function stubSyncApi(
  jobs: SyncJob[],
  extra: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)> = {},
  profile: UserProfile = syncProfiles.owner,
) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: profile },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    'GET /api/sync/get_jobs': { status: 200, body: { data: jobs } },
    ...extra,
  });
}
