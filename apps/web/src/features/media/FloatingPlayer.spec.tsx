import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  PLAYER_MIN_HEIGHT,
  PLAYER_MIN_WIDTH,
  objectMessages,
  type MediaPlayback,
} from '@cumulo/contract';
import { Button } from 'antd';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply } from '../../test/fake-api.ts';
import { PlayerProvider } from './PlayerProvider.tsx';
import { usePlayer } from './usePlayer.ts';

/** hls.js stands in: jsdom has no Media Source Extensions to play through, so the test sees what it was told. */
const hlsCalls = vi.hoisted(() => ({
  loaded: [] as string[],
  attached: [] as HTMLMediaElement[],
  destroyed: 0,
}));
vi.mock('hls.js', () => {
  class FakeHls {
    static Events = { ERROR: 'hlsError' };
    static isSupported = () => true;
    on() {}
    loadSource(url: string) {
      hlsCalls.loaded.push(url);
    }
    attachMedia(media: HTMLMediaElement) {
      hlsCalls.attached.push(media);
    }
    destroy() {
      hlsCalls.destroyed += 1;
    }
  }
  return { default: FakeHls };
});

const ACCOUNT_ID = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const EXPIRES = '2030-01-01T00:00:00.000Z';
const FILE_URL = 'http://store.test/media/clip.mp4?X-Amz-Signature=abc';
const HLS_URL = '/api/media/hls/tok.sig/master.m3u8';

/** A page of some screen with a Play button, as the bucket browser and media search have. */
function Page() {
  const player = usePlayer();
  return (
    <>
      <Button
        onClick={() =>
          void player.play({
            cloud_account_id: ACCOUNT_ID,
            bucket_name: 'media',
            path: 'a/clip.mp4',
            name: 'clip.mp4',
          })
        }
      >
        Play clip
      </Button>
      <Button
        onClick={() =>
          void player.play({
            cloud_account_id: ACCOUNT_ID,
            bucket_name: 'media',
            path: 'show/master.m3u8',
            name: 'master.m3u8',
          })
        }
      >
        Play show
      </Button>
    </>
  );
}

function renderPlayer(play: FakeReply | ((path: string) => FakeReply)) {
  const calls = stubApi({
    'GET /api/media/play': (call) =>
      typeof play === 'function' ? play(new URLSearchParams(call.search).get('path') ?? '') : play,
  });
  const view = renderAt('/', [
    {
      path: '/',
      element: (
        <PlayerProvider>
          <Page />
        </PlayerProvider>
      ),
    },
  ]);
  return { ...view, calls };
}

const answer = (path: string): FakeReply => {
  const playback: MediaPlayback = path.endsWith('.m3u8')
    ? { url: HLS_URL, kind: 'hls', expires_at: EXPIRES }
    : { url: FILE_URL, kind: 'file', expires_at: EXPIRES };
  return { status: 200, body: playback };
};

const videoOf = (player: HTMLElement) => {
  const video = player.querySelector('video');
  if (!video) throw new Error('no <video> in the player');
  return video;
};

describe('the floating video player (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    hlsCalls.loaded = [];
    hlsCalls.attached = [];
    hlsCalls.destroyed = 0;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    Reflect.deleteProperty(window, 'MediaSource');
  });

  it('plays a file from its signed URL in a window titled by the file, not a modal, closed by its button', async () => {
    const { user, calls } = renderPlayer(answer);
    await user.click(screen.getByRole('button', { name: 'Play clip' }));

    const player = await screen.findByRole('dialog', { name: 'Video player: clip.mp4' });
    expect(player).toHaveAttribute('aria-modal', 'false');
    expect(within(player).getByText('clip.mp4')).toBeInTheDocument();
    const video = videoOf(player);
    expect(video).toHaveAttribute('src', FILE_URL);
    expect(video).toHaveAttribute('data-engine', 'file');
    expect(hlsCalls.loaded).toEqual([]);
    const query = new URLSearchParams(calls.find((call) => call.path === '/api/media/play')?.search);
    expect(Object.fromEntries(query)).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'media',
      path: 'a/clip.mp4',
    });
    // The page stays usable under it.
    expect(screen.getByRole('button', { name: 'Play show' })).toBeEnabled();

    await user.click(within(player).getByRole('button', { name: 'Close the player' }));
    expect(screen.queryByRole('dialog', { name: /Video player/ })).toBeNull();
  });

  it('plays a playlist through hls.js where Media Source Extensions exist', async () => {
    Object.defineProperty(window, 'MediaSource', { configurable: true, value: class {} });
    const { user } = renderPlayer(answer);
    await user.click(screen.getByRole('button', { name: 'Play show' }));

    const player = await screen.findByRole('dialog', { name: 'Video player: master.m3u8' });
    const video = videoOf(player);
    await waitFor(() => expect(video).toHaveAttribute('data-engine', 'hls.js'));
    expect(hlsCalls.loaded).toEqual([HLS_URL]);
    expect(hlsCalls.attached).toEqual([video]);
    expect(video).not.toHaveAttribute('src');

    await user.click(within(player).getByRole('button', { name: 'Close the player' }));
    expect(hlsCalls.destroyed).toBe(1);
  });

  it('plays a playlist natively where there is no Media Source Extensions but the browser plays HLS', async () => {
    expect('MediaSource' in window).toBe(false);
    vi.spyOn(HTMLMediaElement.prototype, 'canPlayType').mockImplementation((type) =>
      type === 'application/vnd.apple.mpegurl' ? 'maybe' : '',
    );
    const { user } = renderPlayer(answer);
    await user.click(screen.getByRole('button', { name: 'Play show' }));

    const video = videoOf(await screen.findByRole('dialog', { name: 'Video player: master.m3u8' }));
    await waitFor(() => expect(video).toHaveAttribute('data-engine', 'native'));
    expect(video.src).toBe(new URL(HLS_URL, window.location.href).href);
    expect(hlsCalls.loaded).toEqual([]);
  });

  it('is never resized below 100×50', async () => {
    const { user } = renderPlayer(answer);
    await user.click(screen.getByRole('button', { name: 'Play clip' }));
    const player = await screen.findByRole('dialog', { name: 'Video player: clip.mp4' });
    expect(player.style.minWidth).toBe(`${PLAYER_MIN_WIDTH}px`);
    expect(player.style.minHeight).toBe(`${PLAYER_MIN_HEIGHT}px`);

    const handle = within(player).getByRole('slider', { name: /Resize the player/ });
    handle.focus();
    await user.keyboard('{ArrowLeft>60/}{ArrowUp>40/}');
    expect(player.style.width).toBe(`${PLAYER_MIN_WIDTH}px`);
    expect(player.style.height).toBe(`${PLAYER_MIN_HEIGHT}px`);
    await user.keyboard('{ArrowRight>3/}{ArrowDown>2/}');
    expect(player.style.width).toBe(`${PLAYER_MIN_WIDTH + 30}px`);
    expect(player.style.height).toBe(`${PLAYER_MIN_HEIGHT + 20}px`);
  });

  it("answers a playback without URL with the spec's toast and opens no window", async () => {
    const { user } = renderPlayer({ status: 404, body: { message: 'clip.mp4 does not exist (any more).' } });
    await user.click(screen.getByRole('button', { name: 'Play clip' }));
    expect(await screen.findByText(objectMessages.playFailed)).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: /Video player/ })).toBeNull();
  });
});
