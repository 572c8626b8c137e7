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

/**
 * Maps `source` through `work` with up to `concurrency` calls in flight, yielding the results in source order:
 * a stream of listed objects where a few need a request each (a HEAD) goes on at the pace of the many that do
 * not. `work` answers at once (a value) where it needs no request, which costs no more than the iteration itself.
 * A result is yielded as soon as it and those before it are ready, without waiting for the source's next element
 * (a listing's next page may be slow to come). At most `concurrency` elements are held; a failed call surfaces
 * when its element is reached, a failed source when the calls before it are yielded; stopping early lets the
 * source go without waiting for the calls still in flight.
 */
export async function* mapAhead<T, R>(
  source: AsyncIterable<T>,
  concurrency: number,
  work: (element: T) => R | Promise<R>,
): AsyncGenerator<R> {
  const iterator = source[Symbol.asyncIterator]();
  // Each result: ready, or a call in flight (`settled` once it answered, either way).
  const held: Array<{ ready: true; value: R } | { ready: false; call: Promise<R>; settled: boolean }> = [];
  let next: Promise<IteratorResult<T>> | null = null;
  let exhausted = false;
  const limit = Math.max(1, concurrency);
  try {
    for (;;) {
      while (!exhausted && held.length < limit) {
        const head = held[0];
        if (head && (head.ready || head.settled)) break;
        if (!next) {
          next = iterator.next();
          // Awaited below or on a later turn; until then a failure must not count as unhandled.
          next.catch(() => undefined);
        }
        // A call in flight at the head may answer before the source's next element: it goes out first.
        if (head && (await Promise.race([next.then(() => false), head.call.then(yes, yes)]))) break;
        const element = await next;
        next = null;
        if (element.done) {
          exhausted = true;
          break;
        }
        let answer: R | Promise<R>;
        try {
          answer = work(element.value);
        } catch (error) {
          answer = Promise.reject(error);
        }
        if (answer instanceof Promise) {
          const entry = { ready: false as const, call: answer, settled: false };
          // Handled where it is awaited, in order; until then it must not count as unhandled.
          answer.then(
            () => (entry.settled = true),
            () => (entry.settled = true),
          );
          held.push(entry);
        } else {
          held.push({ ready: true, value: answer });
        }
      }
      const first = held.shift();
      if (!first) return;
      yield first.ready ? first.value : await first.call;
    }
  } finally {
    if (!exhausted) await iterator.return?.();
  }
}

const yes = () => true;
