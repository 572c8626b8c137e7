import { useSyncExternalStore } from 'react';
import { initialTransferScreen, type TransferScreenState } from './transfer-screen-state.ts';

/**
 * A small external store for the two-panel transfer screen. It lives at module level, outside the route's
 * component tree, so the screen's state is kept when the user leaves and returns (spec 001 §2). The repository
 * has no state library; React's useSyncExternalStore is all this needs.
 */
export interface TransferScreenStore {
  get(): TransferScreenState;
  update(change: (state: TransferScreenState) => TransferScreenState): void;
  subscribe(listener: () => void): () => void;
  /** Back to the first visit's state, for `userId`. */
  reset(userId: string | null): void;
}

function createTransferScreenStore(): TransferScreenStore {
  let state = initialTransferScreen();
  const listeners = new Set<() => void>();
  const emit = () => {
    for (const listener of listeners) listener();
  };
  return {
    get: () => state,
    update(change) {
      const next = change(state);
      if (next === state) return;
      state = next;
      emit();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset(userId) {
      state = initialTransferScreen(userId);
      emit();
    },
  };
}

/** One store per screen variant (/c2c and /transfers keep their own panels). */
const stores = new Map<string, TransferScreenStore>();

export function transferScreenStore(variant: string): TransferScreenStore {
  let store = stores.get(variant);
  if (!store) {
    store = createTransferScreenStore();
    stores.set(variant, store);
  }
  return store;
}

export function useTransferScreen(store: TransferScreenStore): TransferScreenState {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}
