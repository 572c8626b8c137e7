import { useContext } from 'react';
import { App } from 'antd';
import { mediaSearchMessages, type MediaLocation } from '@cumulo/contract';
import { ApiError } from '../../api/client.ts';
import { PlayerContext } from '../media/usePlayer.ts';
import { fetchPlayback } from './media-search-api.ts';

/** A file the preview pane asks to play. */
export interface PlayableFile extends MediaLocation {
  name: string;
}

/**
 * The play action of the preview pane: the app's floating player (PlayerProvider in AppLayout, issue 26 point 3);
 * outside it (a page rendered alone), the signed URL of GET /media/play in a new tab, where the browser's own
 * player shows an MP4.
 */
export function usePlayVideo(): (file: PlayableFile) => void {
  const player = useContext(PlayerContext);
  const { message } = App.useApp();
  if (player) {
    return (file) =>
      void player.play({
        cloud_account_id: file.cloud_account_id,
        bucket_name: file.bucket_name,
        path: file.path,
        name: file.name,
      });
  }
  return (file) => {
    // Opened now, in the click, so no pop-up blocker refuses it; it is pointed at the URL once that is signed.
    const tab = window.open('about:blank', '_blank');
    if (tab) tab.opener = null;
    const location = {
      cloud_account_id: file.cloud_account_id,
      bucket_name: file.bucket_name,
      path: file.path,
    };
    void fetchPlayback(location).then(
      (playback) => {
        if (tab) tab.location.href = playback.url;
        else window.location.assign(playback.url);
      },
      (error: unknown) => {
        tab?.close();
        void message.error(error instanceof ApiError ? error.message : mediaSearchMessages.playFailed);
      },
    );
  };
}

const VIDEO_EXTENSIONS = /\.(mp4|m4v|mov|webm|mkv|m3u8|ts)$/i;

/** Whether the preview offers Play video: a video content type, or a video file name where the type is unknown. */
export function isVideo(name: string, contentType: string | null): boolean {
  if (contentType?.startsWith('video/') || contentType === 'application/vnd.apple.mpegurl') return true;
  return VIDEO_EXTENSIONS.test(name);
}
