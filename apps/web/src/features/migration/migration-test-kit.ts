import { screen, waitFor, within } from '@testing-library/react';
import {
  FS_FILE_TYPE,
  storageIdOf,
  type CloudAccountView,
  type ListingAnswer,
  type ListingItem,
  type TransferBatch,
  type TransferStarted,
} from '@cumulo/contract';
import type { FakeReply, RecordedCall } from '../../test/fake-api.ts';
import type { renderAt } from '../../test/render.tsx';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';

// Shared arrange steps of the migration feature's component specs (the network is a stubbed fetch).

export const AWS_ID = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
export const WASABI_ID = '0b8e4d2c-7a13-4f5e-8c9d-1e2f3a4b5c6d';

export const accounts: CloudAccountView[] = [
  buildCloudAccount({
    id: AWS_ID,
    name: 'Main AWS',
    provider: 'aws',
    storages: [
      buildBucket({ name: 'photos', cloud_account_id: AWS_ID }),
      buildBucket({ name: 'backup', cloud_account_id: AWS_ID }),
    ],
  }),
  buildCloudAccount({
    id: WASABI_ID,
    name: 'Cold Wasabi',
    provider: 'wasabi',
    storages: [buildBucket({ name: 'archive', cloud_account_id: WASABI_ID })],
  }),
];

export function item(bucket: string, key: string, size = 2048): ListingItem {
  const folder = key.endsWith('/');
  const name = key.replace(/\/$/, '').split('/').at(-1) ?? key;
  return {
    basename: name,
    name,
    path: key,
    key,
    full_path: `${bucket}/${key}`,
    size: folder ? 0 : size,
    type: folder ? FS_FILE_TYPE.folder : FS_FILE_TYPE.file,
    last_modified: folder ? null : '2025-06-03T09:30:00.000Z',
    download_url: null,
  };
}

/** What each folder holds: "accountId/bucket/path" → keys. */
const folders: Record<string, string[]> = {
  [`${AWS_ID}/photos/`]: ['docs/', 'clip.mp4', 'a.txt'],
  [`${AWS_ID}/photos/docs/`]: ['docs/inner.txt'],
  [`${AWS_ID}/backup/`]: ['old-backup.tar'],
  [`${WASABI_ID}/archive/`]: ['old.txt'],
};

export const contentPath = (accountId: string, bucket: string) =>
  `/api/storage/${encodeURIComponent(storageIdOf(accountId, bucket))}/content`;

function listingHandler(accountId: string, bucket: string) {
  return (call: RecordedCall): FakeReply => {
    const query = new URLSearchParams(call.search);
    const raw = query.get('path') ?? '';
    // As the server: a folder path ('docs' lists 'docs/'), or with match=prefix the keys starting with it.
    const prefix = query.get('match') === 'prefix';
    const path = prefix || raw === '' || raw.endsWith('/') ? raw : `${raw}/`;
    const folder = path.slice(0, path.lastIndexOf('/') + 1);
    const keys = (folders[`${accountId}/${bucket}/${folder}`] ?? []).filter((key) => key.startsWith(path));
    const body: ListingAnswer = {
      items: keys.map((key) => item(bucket, key)),
      path,
      last_file: keys.at(-1) ?? null,
      continuation_token: null,
      id: storageIdOf(accountId, bucket),
      bucket_name: bucket,
      cloud_account_id: accountId,
    };
    return { status: 200, body };
  };
}

export function listingHandlers(): Record<string, (call: RecordedCall) => FakeReply> {
  const handlers: Record<string, (call: RecordedCall) => FakeReply> = {};
  for (const account of accounts) {
    for (const storage of account.storages) {
      handlers[`GET ${contentPath(account.id, storage.bucket_name)}`] = listingHandler(
        account.id,
        storage.bucket_name,
      );
    }
  }
  return handlers;
}

export function buildBatch(overrides: Partial<TransferBatch> = {}): TransferBatch {
  return {
    id: '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    transferType: 1,
    operation: 'copy',
    transferStatus: 2,
    phase: 'planning',
    total: 0,
    totalSize: 0,
    transferred: 0,
    transferredSize: 0,
    deleted: 0,
    failed: 0,
    skipped: 0,
    skippedSize: 0,
    bytesDone: 0,
    averageSpeed: 0,
    requestDate: '2025-06-03T09:30:00.000Z',
    startedAt: null,
    finishedAt: null,
    sourceCloudAccount: { id: AWS_ID, name: 'Main AWS' },
    destinationCloudAccount: { id: WASABI_ID, name: 'Cold Wasabi' },
    sourceBucket: 'photos',
    destinationBucket: 'archive',
    sourcePath: '',
    destinationPath: '',
    skipExisting: false,
    bandwidthLimit: null,
    syncJobId: null,
    syncCycleId: null,
    retryOf: null,
    Retried: false,
    createdBy: buildProfile().id,
    error: null,
    ...overrides,
  };
}

export const startedAnswer = (message = 'Transfer enqueue successfully'): TransferStarted => ({
  message,
  batch: buildBatch(),
});

type User = ReturnType<typeof renderAt>['user'];

/** The open antd dropdown (the one not hidden). */
function openDropdown(): HTMLElement {
  const open = Array.from(document.querySelectorAll<HTMLElement>('.ant-select-dropdown')).filter(
    (element) => !element.className.includes('ant-select-dropdown-hidden'),
  );
  const last = open.at(-1);
  if (!last) throw new Error('no open dropdown');
  return last;
}

/** Opens the labelled select and picks the option with that text (waits for options to arrive). */
export async function pick(user: User, label: string, option: string, scope: HTMLElement = document.body) {
  await user.click(await within(scope).findByRole('combobox', { name: label }));
  const choice = await waitFor(() => {
    const found = openDropdown().querySelector<HTMLElement>(`.ant-select-item-option[title="${option}"]`);
    if (!found) throw new Error(`no option ${option}`);
    return found;
  });
  await user.click(choice);
}

/** The value shown by a labelled select. */
export function selectedValue(label: string): string | null {
  const combobox = screen.getByRole('combobox', { name: label });
  return combobox.closest('.ant-select-content')?.getAttribute('title') ?? null;
}

/**
 * The open dialog holding this title. Under NODE_ENV test antd's generated ids are all 'test-id', so a dialog's
 * aria-labelledby cannot name it: find it by its text instead.
 */
export async function findDialog(title: string): Promise<HTMLElement> {
  return waitFor(() => {
    const dialog = screen.getAllByRole('dialog').find((candidate) => within(candidate).queryByText(title));
    if (!dialog) throw new Error(`no dialog ${title}`);
    return dialog;
  });
}

export function queryDialog(title: string): HTMLElement | null {
  return screen.queryAllByRole('dialog').find((candidate) => within(candidate).queryByText(title)) ?? null;
}
