type Listener<T> = (event: T) => void;

export interface Channel<T> {
  emit(event: T): void;
  subscribe(listener: Listener<T>): () => void;
}

function createChannel<T>(): Channel<T> {
  const listeners = new Set<Listener<T>>();
  return {
    emit(event) {
      for (const listener of [...listeners]) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** A call (not an authentication call) answered 401: the session is no longer valid. */
export interface UnauthorizedEvent {
  path: string;
}

/** A call answered 400 and its screen did not opt out of the shared 'Error' modal. */
export interface BadRequestEvent {
  messages: string[];
}

export const unauthorizedChannel = createChannel<UnauthorizedEvent>();
export const badRequestChannel = createChannel<BadRequestEvent>();
