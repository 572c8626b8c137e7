import { useState } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  formatBytes,
  mediaMessages,
  type MediaInfo,
  type MetadataEntry,
} from '@cumulo/contract';
import { RootShell } from '../../app/RootShell.tsx';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type RecordedCall } from '../../test/fake-api.ts';
import { MediaInfoModal } from './MediaInfoModal.tsx';
import type { MediaTarget } from './media-api.ts';

const ACCOUNT_ID = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const clip: MediaTarget = {
  cloud_account_id: ACCOUNT_ID,
  bucket_name: 'media',
  path: 'clips/clip.mp4',
  name: 'clip.mp4',
};

const entry = (id: string, name: string, value: string): MetadataEntry => ({
  id,
  name,
  value,
  category: 'Custom',
  cloud: ACCOUNT_ID,
  storage: 'media',
  path: 'clips/clip.mp4',
});

/** What the server answers for a 3 s H.264/AAC clip with the given Custom entries. */
const infoOf = (metadata: MetadataEntry[]): MediaInfo => ({
  general: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 3.0, size: 294512, bit_rate: 785365 },
  video: [{ codec: 'h264', width: 320, height: 240, frame_rate: 25, pixel_format: 'yuv420p' }],
  audio: [{ codec: 'aac', channels: 2, channel_layout: 'stereo', sample_rate: 44100 }],
  s3_metadata: { content_type: 'video/mp4', etag: '"abc"', 'metadata.origin': 'lab' },
  metadata,
});

function Host() {
  const [target, setTarget] = useState<MediaTarget | null>(clip);
  return <MediaInfoModal target={target} onClose={() => setTarget(null)} />;
}

/** Under the app's root shell, so a call that is not silent would open the shared 'Error' modal too. */
const renderModal = () =>
  renderAt('/', [{ element: <RootShell />, children: [{ path: '/', element: <Host /> }] }]);

describe('MediaInfoModal (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));

  it('reads the file with a spinner, then shows General, Video, Audio, S3 metadata and Metadata tabs', async () => {
    const calls = stubApi({ 'GET /api/media/info': { status: 200, body: infoOf([]) } });
    const { user } = renderModal();

    const dialog = await screen.findByRole('dialog', { name: 'Media info: clip.mp4' });
    expect(within(dialog).getByText('Reading the file…')).toBeInTheDocument();
    const general = await within(dialog).findByRole('tabpanel', { name: 'General' });
    expect(within(general).getByText('Duration').closest('tr')).toHaveTextContent('3.00 s');
    expect(within(general).getByText('Size').closest('tr')).toHaveTextContent(formatBytes(294512));
    expect(within(general).getByText('Bit rate').closest('tr')).toHaveTextContent('785 kb/s');
    const query = new URLSearchParams(calls.find((call) => call.path === '/api/media/info')?.search);
    expect(Object.fromEntries(query)).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'media',
      path: 'clips/clip.mp4',
    });

    await user.click(within(dialog).getByRole('tab', { name: 'Video' }));
    const video = await within(dialog).findByLabelText('Video stream 1');
    expect(within(video).getByText('Codec').closest('tr')).toHaveTextContent('h264');
    expect(within(video).getByText('Frame rate').closest('tr')).toHaveTextContent('25 fps');
    await user.click(within(dialog).getByRole('tab', { name: 'Audio' }));
    const audio = await within(dialog).findByLabelText('Audio stream 1');
    expect(within(audio).getByText('Sample rate').closest('tr')).toHaveTextContent('44,100 Hz');
    await user.click(within(dialog).getByRole('tab', { name: 'S3 metadata' }));
    const store = await within(dialog).findByRole('tabpanel', { name: 'S3 metadata' });
    expect(within(store).getByText('metadata.origin').closest('tr')).toHaveTextContent('lab');
    await user.click(within(dialog).getByRole('tab', { name: 'Metadata' }));
    expect(await within(dialog).findByText('No custom metadata yet')).toBeInTheDocument();
  });

  it('adds a Custom entry with a name and value and deletes one, listing what the server then holds', async () => {
    let held = [entry('e1', 'Reel', '7')];
    const calls = stubApi({
      'GET /api/media/info': () => ({ status: 200, body: infoOf(held) }),
      'POST /api/metadata/add': (call: RecordedCall) => {
        const { name, value } = call.body as { name: string; value: string };
        if (name === 'Reel') return { status: 400, body: { message: mediaMessages.metadataExists('Reel') } };
        const added = entry('e2', name, value);
        held = [...held, added];
        return { status: 201, body: added };
      },
      'DELETE /api/metadata/e1': () => {
        const [gone] = held;
        held = held.slice(1);
        return { status: 200, body: gone };
      },
    });
    const { user } = renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Media info: clip.mp4' });
    await user.click(await within(dialog).findByRole('tab', { name: 'Metadata' }));
    expect(await within(dialog).findByText('Reel')).toBeInTheDocument();

    // An empty name is refused before any call.
    await user.click(within(dialog).getByRole('button', { name: /Add/ }));
    expect(await within(dialog).findByText(mediaMessages.metadataNameRequired)).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText('Metadata name'), 'Reel');
    await user.type(within(dialog).getByLabelText('Metadata value'), '8');
    await user.click(within(dialog).getByRole('button', { name: /Add/ }));
    expect(await screen.findByText(mediaMessages.metadataExists('Reel'))).toBeInTheDocument();

    await user.clear(within(dialog).getByLabelText('Metadata name'));
    await user.type(within(dialog).getByLabelText('Metadata name'), 'Scene');
    await user.clear(within(dialog).getByLabelText('Metadata value'));
    await user.type(within(dialog).getByLabelText('Metadata value'), 'Opening');
    await user.click(within(dialog).getByRole('button', { name: /Add/ }));
    expect(await within(dialog).findByText('Opening')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').at(-1)?.body).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'media',
      path: 'clips/clip.mp4',
      name: 'Scene',
      value: 'Opening',
    });
    // The form is empty again for the next entry.
    expect(within(dialog).getByLabelText('Metadata name')).toHaveValue('');

    await user.click(within(dialog).getByRole('button', { name: 'Delete metadata Reel' }));
    await waitFor(() => expect(within(dialog).queryByText('Reel')).toBeNull());
    expect(within(dialog).getByText('Scene')).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/metadata/e1')).toBe(true);
  });

  it("shows the server's not-media message in words instead of empty tabs", async () => {
    const message = mediaMessages.notMedia('clips/clip.mp4');
    stubApi({
      'GET /api/media/info': { status: 400, body: { message, errors: { base: [message] } } },
    });
    renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Media info: clip.mp4' });
    expect(await within(dialog).findByText(message)).toBeInTheDocument();
    expect(within(dialog).queryByRole('tab')).toBeNull();
    // Silent: no shared 'Error' modal on top of the media-info modal.
    expect(screen.getAllByRole('dialog')).toHaveLength(1);
  });
});
