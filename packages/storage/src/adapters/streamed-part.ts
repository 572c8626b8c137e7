import { Transform, type Readable } from 'node:stream';
import type { StreamedPartBody } from '../object-store.ts';

/** A streamed part body that ended short of, or ran past, the length it was sent with. */
export class PartLengthError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`The part body gave ${received} bytes where ${expected} were announced`);
    this.name = 'PartLengthError';
  }
}

/**
 * A streamed part as an adapter sends it: its bytes counted against the announced Content-Length, and a signal
 * that aborts the request as soon as the body fails. An HTTP client that pipes a body into a request with a
 * Content-Length neither ends nor aborts it when the body errors or ends short: the request would wait for bytes
 * that never come, or end short and leave the server to guess. Aborting it cuts the connection mid-body, so the
 * store keeps no part (S3 and Azure store a part only once its announced length has arrived).
 */
export function sendableStream(
  body: StreamedPartBody,
  outer?: AbortSignal,
): { stream: Readable; signal: AbortSignal; failure: () => unknown } {
  const controller = new AbortController();
  let failed: unknown;
  const fail = (error: unknown) => {
    failed ??= error;
    controller.abort(failed);
  };
  const onOuterAbort = () => fail(outer?.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  let received = 0;
  // The latest chunk is held back until the next one (or the end) shows the body does not run past its length:
  // the store must never see the announced length complete from a body that then turns out longer.
  let held: Buffer | null = null;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > body.length) return callback(new PartLengthError(body.length, received));
      const previous = held;
      held = chunk;
      callback(null, previous ?? undefined);
    },
    flush(callback) {
      outer?.removeEventListener('abort', onOuterAbort);
      if (received !== body.length) return callback(new PartLengthError(body.length, received));
      callback(null, held ?? undefined);
    },
  });
  counted.on('error', fail);
  const failBody = (error: unknown) => {
    fail(error);
    counted.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  body.stream.on('error', failBody);
  // A body that failed before it was handed over emits no error any more, and would never end.
  if (body.stream.errored) failBody(body.stream.errored);
  else body.stream.pipe(counted);
  return {
    stream: counted,
    signal: controller.signal,
    failure: () => failed,
  };
}

export const isStreamedBody = (body: Buffer | StreamedPartBody): body is StreamedPartBody =>
  !Buffer.isBuffer(body);
