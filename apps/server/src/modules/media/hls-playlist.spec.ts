import { describe, expect, it } from 'vitest';
import { keyInFolder, rewritePlaylist } from './hls-playlist.ts';

const rewrite = (playlist: string, playlistKey: string, folder: string) =>
  rewritePlaylist(playlist, {
    playlistKey,
    folder,
    proxyUrl: (key) => `proxy:${key}`,
    sign: (key) => Promise.resolve(`signed:${key}`),
  });

describe('the HLS playlist rewrite of the playback proxy', () => {
  it('proxies variant and rendition playlists, signs segments, keys and init sections, keeps absolute URIs', async () => {
    const master = [
      '#EXTM3U',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",URI="audio/en.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aud"',
      '720p/index.m3u8',
      '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="720p/iframes.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=400000',
      'https://cdn.example.com/360p.m3u8',
      '',
    ].join('\r\n');
    expect(await rewrite(master, 'show/master.m3u8', 'show/')).toBe(
      [
        '#EXTM3U',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",URI="proxy:show/audio/en.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aud"',
        'proxy:show/720p/index.m3u8',
        '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="proxy:show/720p/iframes.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=400000',
        'https://cdn.example.com/360p.m3u8',
        '',
      ].join('\n'),
    );

    const media = [
      '#EXTM3U',
      '#EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin",IV=0x1',
      '#EXT-X-MAP:URI="init%20a.mp4"',
      '#EXTINF:1.0,',
      'seg0.m4s?v=2',
      '#EXTINF:1.0,',
      './seg1.m4s',
      '#EXTINF:1.0,',
      '../../elsewhere/seg2.m4s',
      '#EXT-X-ENDLIST',
    ].join('\n');
    expect(await rewrite(media, 'show/720p/index.m3u8', 'show/')).toBe(
      [
        '#EXTM3U',
        '#EXT-X-KEY:METHOD=AES-128,URI="signed:show/keys/k1.bin",IV=0x1',
        '#EXT-X-MAP:URI="signed:show/720p/init a.mp4"',
        '#EXTINF:1.0,',
        'signed:show/720p/seg0.m4s',
        '#EXTINF:1.0,',
        'signed:show/720p/seg1.m4s',
        '#EXTINF:1.0,',
        // Outside the granted folder: left as written, so it resolves against the proxy, which refuses it.
        '../../elsewhere/seg2.m4s',
        '#EXT-X-ENDLIST',
      ].join('\n'),
    );
  });

  it('takes only plain relative paths under the folder', () => {
    expect(keyInFolder('show/', '720p/index.m3u8')).toBe('show/720p/index.m3u8');
    expect(keyInFolder('', 'master.m3u8')).toBe('master.m3u8');
    for (const bad of [
      '',
      '../x.m3u8',
      '720p/../../x.m3u8',
      './x.m3u8',
      'a//b.m3u8',
      '/x.m3u8',
      'a\\..\\b',
    ]) {
      expect(keyInFolder('show/', bad), bad).toBeNull();
    }
  });
});
