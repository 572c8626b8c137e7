import { useCallback, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { App } from 'antd';
import { objectMessages, type MediaPlayback } from '@cumulo/contract';
import { fetchPlayback, type MediaTarget } from './media-api.ts';
import { FloatingPlayer } from './FloatingPlayer.tsx';
import { PlayerContext, type Player } from './usePlayer.ts';

/**
 * Holds the one floating video player of the signed-in pages: `usePlayer().play(...)` asks GET /media/play and
 * opens (or switches) the window, which lives outside every page so it stays while the member browses.
 */
export function PlayerProvider({ children }: { children: ReactNode }) {
  const { message } = App.useApp();
  const [playing, setPlaying] = useState<{ target: MediaTarget; playback: MediaPlayback } | null>(null);
  // Two quick clicks on Play: the window shows the last one asked for, whichever answer comes last.
  const latest = useRef(0);

  const play = useCallback(
    async (target: MediaTarget) => {
      const ask = ++latest.current;
      try {
        const playback = await fetchPlayback(target);
        if (!playback.url) throw new Error('no URL');
        if (ask === latest.current) setPlaying({ target, playback });
      } catch {
        // Spec 001 §8 "Playback without URL".
        void message.error(objectMessages.playFailed);
      }
    },
    [message],
  );
  const player = useMemo<Player>(() => ({ play }), [play]);

  return (
    <PlayerContext.Provider value={player}>
      {children}
      {playing
        ? createPortal(
            <FloatingPlayer
              key={playing.playback.url}
              title={playing.target.name}
              playback={playing.playback}
              onClose={() => setPlaying(null)}
            />,
            document.body,
          )
        : null}
    </PlayerContext.Provider>
  );
}
