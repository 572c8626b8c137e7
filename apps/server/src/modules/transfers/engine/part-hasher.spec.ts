import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartHasher } from './part-hasher.ts';

const hex = (algorithm: 'md5' | 'sha256', bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

function partsOf(bytes: Buffer, partSize: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += partSize)
    parts.push(bytes.subarray(start, start + partSize));
  return parts;
}

describe('PartHasher: whole-object checksums from parts that arrive out of order', () => {
  it('gives the MD5 and SHA-256 of the whole object whatever order the parts come in', () => {
    const object = randomBytes(10_000);
    const parts = partsOf(object, 1024);
    const hasher = new PartHasher(parts.length, parts.length);
    const order = [3, 1, 2, 10, 4, 9, 5, 8, 6, 7];
    for (const partNumber of order) hasher.add(partNumber, parts[partNumber - 1] as Buffer);

    expect(hasher.digest()).toEqual({ md5: hex('md5', object), sha256: hex('sha256', object) });
  });

  it('hashes a part only once every earlier part is in', () => {
    const parts = partsOf(randomBytes(4096), 1024);
    const hasher = new PartHasher(parts.length, 4);

    hasher.add(2, parts[1] as Buffer);
    hasher.add(3, parts[2] as Buffer);
    expect(hasher.next).toBe(1);
    hasher.add(1, parts[0] as Buffer);
    expect(hasher.next).toBe(4);
    expect(() => hasher.digest()).toThrow(/3 of 4 parts/);
  });

  it('refuses a part twice, a part already hashed and a part beyond the object', () => {
    const hasher = new PartHasher(3, 3);
    hasher.add(1, Buffer.from('a'));
    hasher.add(3, Buffer.from('c'));

    expect(() => hasher.add(1, Buffer.from('a'))).toThrow(RangeError);
    expect(() => hasher.add(3, Buffer.from('c'))).toThrow(RangeError);
    expect(() => hasher.add(4, Buffer.from('d'))).toThrow(RangeError);
  });

  it('keeps a reader of a part beyond the window waiting until the parts before it are hashed', async () => {
    const hasher = new PartHasher(6, 2);
    await hasher.waitForRoom(1);
    await hasher.waitForRoom(2);
    let thirdMayStart = false;
    const third = hasher.waitForRoom(3).then(() => {
      thirdMayStart = true;
    });

    hasher.add(2, Buffer.from('second'));
    await Promise.resolve();
    expect(thirdMayStart).toBe(false);

    hasher.add(1, Buffer.from('first'));
    await third;
    expect(thirdMayStart).toBe(true);
  });

  it('releases waiting readers with the failure when the copy stops', async () => {
    const hasher = new PartHasher(4, 1);
    const waiting = hasher.waitForRoom(3);
    const failure = new Error('part 1 could not be read');

    hasher.fail(failure);

    await expect(waiting).rejects.toBe(failure);
    await expect(hasher.waitForRoom(2)).rejects.toBe(failure);
  });

  it('releases a waiting reader when its signal aborts', async () => {
    const hasher = new PartHasher(4, 1);
    const controller = new AbortController();
    const waiting = hasher.waitForRoom(2, controller.signal);

    controller.abort(new Error('canceled'));

    await expect(waiting).rejects.toThrow('canceled');
  });

  it('gives the checksums of an empty object', () => {
    expect(new PartHasher(0, 1).digest()).toEqual({
      md5: hex('md5', Buffer.alloc(0)),
      sha256: hex('sha256', Buffer.alloc(0)),
    });
  });
});
