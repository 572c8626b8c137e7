/**
 * Iterates `source` one element ahead: while the caller works on an element (a listing page), the next one is
 * already being fetched. A merge of two listings that waits on each side in turn otherwise leaves one store idle
 * for every page of the other. At most one element is buffered; an error surfaces when its element is reached.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let pending = iterator.next();
  // A rejection is handled where it is awaited; this keeps it from counting as unhandled in the meantime.
  pending.catch(() => undefined);
  try {
    for (;;) {
      const current = await pending;
      if (current.done) return;
      pending = iterator.next();
      pending.catch(() => undefined);
      yield current.value;
    }
  } finally {
    // Stopped early (the caller broke out): let the source release its resources.
    await iterator.return?.();
  }
}
