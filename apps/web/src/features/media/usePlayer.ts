import { createContext, useContext } from 'react';
import type { MediaTarget } from './media-api.ts';

export interface Player {
  /**
   * Plays the object in the floating player (replacing what it plays); a failure to get its URL shows the
   * spec's "failed to file, please retry again" toast. Resolves once the player has its URL or the toast is up.
   */
  play(target: MediaTarget): Promise<void>;
}

export const PlayerContext = createContext<Player | null>(null);

/**
 * The floating video player of the signed-in pages (PlayerProvider in AppLayout): the bucket browser's Play and
 * the media search's "play video" open it, and it stays while the member browses on.
 */
export function usePlayer(): Player {
  const player = useContext(PlayerContext);
  if (!player) throw new Error('usePlayer needs a PlayerProvider above it (AppLayout has one)');
  return player;
}
