import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PartLengthError, sendableStream } from './streamed-part.ts';

const drain = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('sendableStream (a streamed part as an adapter sends it)', () => {
  it('passes a body of exactly its length through, and leaves its signal alone', async () => {
    const body = Buffer.from('0123456789');
    const sendable = sendableStream({
      stream: Readable.from([body.subarray(0, 4), body.subarray(4)]),
      length: 10,
    });
    expect((await drain(sendable.stream)).equals(body)).toBe(true);
    expect(sendable.signal.aborted).toBe(false);
    expect(sendable.failure()).toBeUndefined();
  });

  it('holds the last chunk back, so a body that runs long never gives its whole length downstream', async () => {
    const sendable = sendableStream({
      stream: Readable.from([Buffer.from('0123456789'), Buffer.from('!')]),
      length: 10,
    });
    const received: Buffer[] = [];
    sendable.stream.on('data', (chunk: Buffer) => received.push(chunk));
    await new Promise((resolve) => sendable.stream.once('error', resolve));
    expect(Buffer.concat(received).length).toBe(0);
    expect(sendable.failure()).toBeInstanceOf(PartLengthError);
    expect(sendable.signal.aborted).toBe(true);
  });

  it('aborts on a body that ends short of its length', async () => {
    const sendable = sendableStream({ stream: Readable.from([Buffer.from('0123')]), length: 10 });
    await expect(drain(sendable.stream)).rejects.toBeInstanceOf(PartLengthError);
    expect(sendable.signal.aborted).toBe(true);
    expect((sendable.failure() as PartLengthError).received).toBe(4);
  });

  it("fails with the body's own error, also one it had before it was handed over", async () => {
    const broken = new Readable({ read() {} });
    broken.on('error', () => undefined);
    broken.destroy(new Error('the source read failed'));
    await new Promise((resolve) => setImmediate(resolve));
    const sendable = sendableStream({ stream: broken, length: 10 });
    expect(sendable.signal.aborted).toBe(true);
    expect((sendable.failure() as Error).message).toBe('the source read failed');
  });
});
