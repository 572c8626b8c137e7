import { describe, expect, it } from 'vitest';
import { isPlayable } from './media.ts';

describe('isPlayable', () => {
  it('offers Play on video, audio and HLS playlists, in any case and in any folder', () => {
    for (const name of ['clip.mp4', 'CLIP.MOV', 'show/master.m3u8', 'a.b/song.mp3', 'cut.MXF', 'take.webm']) {
      expect(isPlayable(name), name).toBe(true);
    }
  });

  it('offers Play on a file with no ending, and not on documents, images or archives', () => {
    expect(isPlayable('raw-capture')).toBe(true);
    expect(isPlayable('folder.v2/raw-capture')).toBe(true);
    expect(isPlayable('.hidden')).toBe(true);
    for (const name of ['notes.txt', 'photo.jpg', 'backup.tar.gz', 'clip.mp4.part', 'report.pdf']) {
      expect(isPlayable(name), name).toBe(false);
    }
  });
});
