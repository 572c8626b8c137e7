import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  billingMessages,
  formatBytes,
  mediaMessages,
  type EncodingPresets,
  type UserProfile,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';
import { findDialog, pick } from '../migration/migration-test-kit.ts';
import type { BrowserFile } from '../browser/BucketBrowser.tsx';
import { EncodeDialog } from './EncodeDialog.tsx';

const SOURCE_ID = '0b7d1a52-0000-4000-8000-0000000000a1';
const TARGET_ID = '0b7d1a52-0000-4000-8000-0000000000b2';
const GiB = 1024 ** 3;
const accounts = [
  buildCloudAccount({ id: SOURCE_ID, name: 'Studio S3', storages: [buildBucket({ name: 'raw' })] }),
  buildCloudAccount({
    id: TARGET_ID,
    name: 'Delivery S3',
    storages: [buildBucket({ name: 'out', cloud_account_id: TARGET_ID })],
  }),
];
const presets: EncodingPresets = {
  transcode_presets: [
    {
      category: 'MP4',
      presets: [
        { name: 'MP4 H.264/AAC 720p', description: '720p', outputs: ['{name}-720p.mp4'] },
        { name: 'MP4 H.264/AAC 480p', description: '480p', outputs: ['{name}-480p.mp4'] },
      ],
    },
    {
      category: 'Images',
      presets: [{ name: 'Thumbnail', description: 'one frame', outputs: ['{name}-thumbnail.jpg'] }],
    },
  ],
};

/** 123 456 789 bytes: 0.11498 GB, so one preset costs $0.0575 and two $0.11498 — both need the rounding. */
const clip: BrowserFile = {
  accountId: SOURCE_ID,
  bucket: 'raw',
  path: 'clips/intro.mp4',
  name: 'intro.mp4',
  size: 123_456_789,
};

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

function stubDialog(profile: Partial<UserProfile> = {}, extra: Record<string, Handler> = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile(profile) },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    'GET /api/encoding/presets': { status: 200, body: presets },
    'POST /api/encoding/encode': { status: 200, body: { message: mediaMessages.queued, jobs: [] } },
    ...extra,
  });
}

const closed: number[] = [];
const renderDialog = (files: BrowserFile[] = [clip]) =>
  renderAt('/', [
    { path: '/', element: <EncodeDialog files={files} onClose={() => closed.push(1)} /> },
    { path: '/encoding', element: <p>The jobs page</p> },
  ]);

type User = ReturnType<typeof renderAt>['user'];
const group = (name: string) => screen.getByRole('group', { name });
const encodeButton = () => screen.getByRole('button', { name: 'Encode' });

/** Fills a preset row: its category and preset, then its destination account and bucket. */
async function fillPreset(user: User, row: string, category: string, preset: string) {
  await pick(user, 'Category', category, group(row));
  await pick(user, 'Preset', preset, group(row));
  await pick(user, 'Destination account', 'Delivery S3', group(row));
  await pick(user, 'Destination bucket', 'out', group(row));
}

describe('the encode dialog (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    await import('./EncodeDialog.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    closed.length = 0;
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('says what is missing in the words of spec 001 §5 and sends nothing', async () => {
    const calls = stubDialog();
    const { user } = renderDialog();

    expect(await screen.findByText('intro.mp4')).toBeInTheDocument();
    await user.click(encodeButton());
    expect(await screen.findByText(mediaMessages.destinationRequired)).toBeInTheDocument();

    // "Add preset" needs an account and a bucket too.
    await user.click(screen.getByRole('button', { name: 'Add preset for intro.mp4' }));
    expect(screen.queryByRole('group', { name: 'Preset 2 of intro.mp4' })).toBeNull();

    await pick(user, 'Destination account', 'Delivery S3', group('Preset 1 of intro.mp4'));
    await pick(user, 'Destination bucket', 'out', group('Preset 1 of intro.mp4'));
    await user.type(within(group('Preset 1 of intro.mp4')).getByLabelText('Destination folder'), '/web//');
    await user.click(encodeButton());
    expect(
      await screen.findByText(mediaMessages.presetRequired('clips/intro.mp4', 'no category', 'out/web/')),
    ).toBeInTheDocument();

    await pick(user, 'Category', 'MP4', group('Preset 1 of intro.mp4'));
    await user.click(encodeButton());
    expect(
      await screen.findByText(mediaMessages.presetRequired('clips/intro.mp4', 'MP4', 'out/web/')),
    ).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Leave out intro.mp4' }));
    await user.click(encodeButton());
    expect(await screen.findByText(mediaMessages.fileRequired)).toBeInTheDocument();
    expect(calls.some((call) => call.path === '/api/encoding/encode')).toBe(false);
  });

  it('prices 0.5 per GB per preset to 3 decimals, queues each preset with its destination and links the jobs', async () => {
    const calls = stubDialog();
    const { user, location } = renderDialog();

    expect(await screen.findByLabelText('Encoding price')).toHaveTextContent('$0.057');
    await fillPreset(user, 'Preset 1 of intro.mp4', 'MP4', 'MP4 H.264/AAC 480p');
    await user.type(within(group('Preset 1 of intro.mp4')).getByLabelText('Destination folder'), 'web');
    await user.click(screen.getByRole('button', { name: 'Add preset for intro.mp4' }));
    // The new preset starts from the previous destination.
    await pick(user, 'Category', 'Images', group('Preset 2 of intro.mp4'));
    await pick(user, 'Preset', 'Thumbnail', group('Preset 2 of intro.mp4'));
    expect(screen.getByLabelText('Encoding price')).toHaveTextContent('$0.115');

    await user.click(encodeButton());
    expect(await screen.findAllByText(mediaMessages.queued)).not.toHaveLength(0);
    const sent = calls.find((call) => call.path === '/api/encoding/encode');
    const destination = { cloud_account_id: TARGET_ID, bucket_name: 'out', path: 'web/' };
    expect(sent?.body).toEqual([
      {
        source: { cloud_account_id: SOURCE_ID, bucket_name: 'raw', path: 'clips/intro.mp4' },
        presets: [
          { category: 'MP4', preset: 'MP4 H.264/AAC 480p', destination },
          { category: 'Images', preset: 'Thumbnail', destination },
        ],
      },
    ]);

    await user.click(screen.getByRole('link', { name: 'Go to Encoding Jobs' }));
    expect(location()).toBe('/encoding');
  });

  it('removes a preset, and the price follows', async () => {
    stubDialog();
    const { user } = renderDialog();
    await pick(user, 'Destination account', 'Delivery S3', group('Preset 1 of intro.mp4'));
    await pick(user, 'Destination bucket', 'out', group('Preset 1 of intro.mp4'));
    await user.click(screen.getByRole('button', { name: 'Add preset for intro.mp4' }));
    expect(screen.getByLabelText('Encoding price')).toHaveTextContent('$0.115');
    await user.click(screen.getByRole('button', { name: 'Remove Preset 2 of intro.mp4' }));
    expect(screen.queryByRole('group', { name: 'Preset 2 of intro.mp4' })).toBeNull();
    expect(screen.getByLabelText('Encoding price')).toHaveTextContent('$0.057');
  });

  it("stops a member past the encoding trial quota with 'Encoding Quota Limit' and what is left", async () => {
    const calls = stubDialog({
      role: { id: 3, title: 'User' },
      quota: { encoding: { total: 5 * GiB, used: 5 * GiB - 100_000_000 } },
    });
    const { user } = renderDialog();
    await fillPreset(user, 'Preset 1 of intro.mp4', 'MP4', 'MP4 H.264/AAC 480p');
    await user.click(encodeButton());

    const modal = await findDialog(billingMessages.encodingQuotaTitle);
    expect(modal).toHaveTextContent(billingMessages.quotaRemaining(formatBytes(100_000_000)));
    expect(calls.some((call) => call.path === '/api/encoding/encode')).toBe(false);
  });

  it('counts each preset against the quota, and offers the Owner without a card the card form', async () => {
    // 200 MB left: the clip once (123 MB) fits, twice does not.
    stubDialog({ quota: { encoding: { total: 5 * GiB, used: 5 * GiB - 200_000_000 } } });
    const { user } = renderDialog();
    await fillPreset(user, 'Preset 1 of intro.mp4', 'MP4', 'MP4 H.264/AAC 480p');
    await user.click(screen.getByRole('button', { name: 'Add preset for intro.mp4' }));
    await pick(user, 'Category', 'Images', group('Preset 2 of intro.mp4'));
    await pick(user, 'Preset', 'Thumbnail', group('Preset 2 of intro.mp4'));
    await user.click(encodeButton());

    const modal = await findDialog('Add Credit Card');
    expect(within(modal).getByLabelText('Card Number')).toBeInTheDocument();
  });

  it("shows the server's quota refusal in the same modal", async () => {
    stubDialog(
      {},
      {
        'POST /api/encoding/encode': {
          status: 403,
          body: {
            message: billingMessages.quotaRemaining('512 Bytes'),
            code: 'QUOTA_EXCEEDED',
            title: billingMessages.encodingQuotaTitle,
            quota: 'encoding',
            remaining: 512,
          },
        },
      },
    );
    const { user } = renderDialog();
    await fillPreset(user, 'Preset 1 of intro.mp4', 'MP4', 'MP4 H.264/AAC 480p');
    await user.click(encodeButton());

    const modal = await findDialog(billingMessages.encodingQuotaTitle);
    expect(modal).toHaveTextContent(billingMessages.quotaRemaining('512 Bytes'));
    expect(screen.queryByText(mediaMessages.queued)).toBeNull();
  });
});
