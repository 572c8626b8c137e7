import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, type DirectUploadRef } from '../../object-store.ts';
import { S3RVER_KEY, startS3rver, type S3rverServer } from '../../testing/servers.ts';
import { S3ObjectStore } from './s3-store.ts';
import { readAll } from '../../testing/objects.ts';

const MiB = 1024 * 1024;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('S3 direct upload against s3rver: the browser PUTs presigned parts (played by Node fetch)', () => {
  let server: S3rverServer;
  let store: S3ObjectStore;
  const bucket = `direct-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    server = await startS3rver();
    store = new S3ObjectStore(
      {
        provider: 'aws',
        accessKeyId: S3RVER_KEY,
        secretAccessKey: S3RVER_KEY,
        region: 'us-east-1',
        endpoint: server.endpoint,
      },
      { maxAttempts: 2 },
    );
    await store.createBucket(bucket);
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  const direct = () => {
    const capability = store.capabilities.directUpload;
    if (!capability) throw new Error('the S3 adapter must declare directUpload');
    return capability;
  };

  it('assembles a 12 MiB file from three presigned parts, byte-identical, with its content type', async () => {
    const file = randomBytes(12 * MiB);
    const partSize = 5 * MiB;
    const key = 'videos/clip one.bin';
    const uploadId = await direct().start(bucket, key, {
      size: file.length,
      partSize,
      contentType: 'video/mp4',
    });
    const upload: DirectUploadRef = { bucket, key, uploadId, size: file.length, partSize };
    const targets = await direct().signParts(upload, [1, 2, 3], { expiresInSeconds: 3600 });

    const parts = [];
    for (const target of targets) {
      expect(target.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
      expect(new URL(target.url).searchParams.get('X-Amz-Expires')).toBe('3600');
      const start = (target.partNumber - 1) * partSize;
      const answer = await fetch(target.url, {
        method: 'PUT',
        headers: target.headers,
        body: file.subarray(start, start + partSize),
      });
      expect(answer.status).toBe(200);
      parts.push({ partNumber: target.partNumber, etag: answer.headers.get('etag') });
    }
    await direct().complete(upload, parts, { contentType: 'video/mp4' });

    const stat = await store.stat(bucket, key);
    expect(stat).toMatchObject({ size: file.length, contentType: 'video/mp4' });
    expect(sha256(await readAll(store, bucket, key))).toBe(sha256(file));
  });

  /** The browser's side: PUT each part to its presigned URL, keep the ETag s3rver answers. */
  async function putParts(upload: DirectUploadRef, file: Buffer, partNumbers: number[]) {
    const etags = new Map<number, string | null>();
    for (const target of await direct().signParts(upload, partNumbers, { expiresInSeconds: 600 })) {
      const start = (target.partNumber - 1) * upload.partSize;
      const answer = await fetch(target.url, {
        method: 'PUT',
        headers: target.headers,
        body: file.subarray(start, start + upload.partSize),
      });
      expect(answer.status).toBe(200);
      etags.set(target.partNumber, answer.headers.get('etag'));
    }
    return etags;
  }

  const openUploads = async (prefix: string) =>
    (await server.openUploads(bucket, prefix)).map((upload) => upload.uploadId);

  it('lists the parts s3rver holds with their sizes and unquoted ETags, and completes from them', async () => {
    const file = randomBytes(12 * MiB);
    const partSize = 5 * MiB;
    const key = 'resume/listed parts.bin';
    const uploadId = await direct().start(bucket, key, { size: file.length, partSize });
    const upload: DirectUploadRef = { bucket, key, uploadId, size: file.length, partSize };
    const etags = await putParts(upload, file, [3, 1]);

    const held = await direct().listParts(upload);

    expect(held).toEqual([
      { partNumber: 1, size: partSize, etag: etags.get(1)?.replace(/"/g, '') },
      { partNumber: 3, size: 2 * MiB, etag: etags.get(3)?.replace(/"/g, '') },
    ]);
    // The resumed browser sends only the missing part; the listed ETags complete the upload.
    const sent = await putParts(upload, file, [2]);
    await direct().complete(upload, [...held, { partNumber: 2, etag: sent.get(2) ?? null }], {});
    expect(sha256(await readAll(store, bucket, key))).toBe(sha256(file));
    expect(await openUploads('resume/')).toEqual([]);
  });

  it('aborts an upload: s3rver drops its parts, and a second abort (already gone) is no error', async () => {
    const file = randomBytes(11 * MiB);
    const partSize = 5 * MiB;
    const key = 'cancel/aborted.bin';
    const uploadId = await direct().start(bucket, key, { size: file.length, partSize });
    const upload: DirectUploadRef = { bucket, key, uploadId, size: file.length, partSize };
    await putParts(upload, file, [1, 2]);
    expect(await openUploads('cancel/')).toEqual([uploadId]);

    await direct().abort(upload);

    expect(await openUploads('cancel/')).toEqual([]);
    const listing = await direct()
      .listParts(upload)
      .catch((error: unknown) => error);
    expect(listing).toBeInstanceOf(StorageError);
    expect(listing).toMatchObject({ status: 404, message: expect.stringMatching(/upload does not exist/) });
    await expect(direct().abort(upload)).resolves.toBeUndefined();
    expect(await store.stat(bucket, key)).toBeNull();
  });

  it('takes a small file in one presigned PUT that carries the content type and the canned ACL', async () => {
    const file = randomBytes(300 * 1024);
    const target = await direct().signSingle(bucket, 'notes/small.txt', {
      expiresInSeconds: 600,
      contentType: 'text/plain',
      acl: 'public-read',
    });
    const url = new URL(target.url);
    expect(target.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
    // The browser sends no x-amz-acl header: the presigner put it in the signed query string.
    expect(url.searchParams.get('x-amz-acl')).toBe('public-read');
    expect(target.headers).toEqual({ 'Content-Type': 'text/plain' });

    const answer = await fetch(target.url, { method: 'PUT', headers: target.headers, body: file });
    expect(answer.status).toBe(200);
    expect(await store.stat(bucket, 'notes/small.txt')).toMatchObject({
      size: file.length,
      contentType: 'text/plain',
    });
    expect(sha256(await readAll(store, bucket, 'notes/small.txt'))).toBe(sha256(file));
  });

  it('takes many small files through signed forms (POST policies) from one call, each with its content type', async () => {
    const signForm = direct().signForm;
    if (!signForm) throw new Error('the S3 adapter must sign forms');
    const files = Array.from({ length: 3 }, (_, i) => ({
      key: `album/p${i}.txt`,
      body: randomBytes(100 + i),
    }));
    const form = await signForm(bucket, {
      files: files.map((file) => ({ key: file.key, size: file.body.length })),
      expiresInSeconds: 600,
    });
    expect(form.url).toBe(`${server.endpoint}/${bucket}/`);
    expect(form.perFile).toHaveLength(3);
    for (const [i, file] of files.entries()) {
      const body = new FormData();
      for (const [name, value] of Object.entries({ ...form.fields, ...form.perFile[i] }))
        body.append(name, value);
      body.append('key', file.key);
      body.append('Content-Type', 'text/plain');
      body.append('file', new Blob([file.body]));
      const answer = await fetch(form.url, { method: 'POST', body });
      expect(answer.status).toBe(204);
    }
    for (const file of files) {
      expect(await store.stat(bucket, file.key)).toMatchObject({
        size: file.body.length,
        contentType: 'text/plain',
      });
      expect(sha256(await readAll(store, bucket, file.key))).toBe(sha256(file.body));
    }
  });

  it('keeps an overridden endpoint even when acceleration is asked for (s3rver has no accelerate host)', async () => {
    const [target] = await direct().signParts(
      { bucket, key: 'k', uploadId: 'u', size: 10 * MiB, partSize: 5 * MiB },
      [1],
      { expiresInSeconds: 60, accelerate: true },
    );
    expect(target?.url.startsWith(`${server.endpoint}/${bucket}/k?`)).toBe(true);
  });
});

describe('S3 direct upload signing for AWS itself (signing is offline: no request is sent)', () => {
  it('signs a POST policy as SigV4 says: HMAC chain of the secret over date, region, s3, aws4_request', async () => {
    // s3rver does not check form signatures; this recomputes the documented derivation independently.
    const store = new S3ObjectStore({
      provider: 'aws',
      accessKeyId: 'placeholder-access-key-id',
      secretAccessKey: 'placeholder-secret-not-a-key',
      region: 'eu-west-1',
    });
    const signForm = store.capabilities.directUpload?.signForm;
    if (!signForm) throw new Error('the S3 adapter must sign forms');
    const form = await signForm('photos', {
      files: [
        { key: 'trips/a.jpg', size: 100 },
        { key: 'trips/b.jpg', size: 7 },
      ],
      expiresInSeconds: 60,
      acl: 'public-read',
    });
    expect(form.url).toBe('https://photos.s3.eu-west-1.amazonaws.com/');
    const date = form.fields['x-amz-date'] ?? '';
    expect(form.fields['x-amz-credential']).toBe(
      `placeholder-access-key-id/${date.slice(0, 8)}/eu-west-1/s3/aws4_request`,
    );
    const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();
    const signingKey = ['eu-west-1', 's3', 'aws4_request'].reduce(
      (key, part) => hmac(key, part),
      hmac('AWS4placeholder-secret-not-a-key', date.slice(0, 8)),
    );
    // Each file's policy names only its own key and size: a form cannot write another object or another size.
    for (const [i, [key, size]] of [
      ['trips/a.jpg', 100],
      ['trips/b.jpg', 7],
    ].entries()) {
      const policy = form.perFile[i]?.policy ?? '';
      expect(form.perFile[i]?.['x-amz-signature']).toBe(hmac(signingKey, policy).toString('hex'));
      const decoded = JSON.parse(Buffer.from(policy, 'base64').toString()) as { conditions: unknown[] };
      expect(decoded.conditions).toEqual(
        expect.arrayContaining([
          { bucket: 'photos' },
          { key },
          ['content-length-range', size, size],
          { acl: 'public-read' },
        ]),
      );
      expect(JSON.stringify(decoded.conditions)).not.toContain('starts-with","$key');
    }
    await store.close();
  });

  it('signs UploadPart for the accelerate endpoint when asked, the regional one otherwise, never with a checksum', async () => {
    const store = new S3ObjectStore({
      provider: 'aws',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      region: 'eu-west-1',
    });
    try {
      const direct = store.capabilities.directUpload;
      if (!direct) throw new Error('the S3 adapter must declare directUpload');
      const upload = {
        bucket: 'media-eu',
        key: 'a/b.mov',
        uploadId: 'up-1',
        size: 12 * MiB,
        partSize: 5 * MiB,
      };
      const [accelerated] = await direct.signParts(upload, [2], { expiresInSeconds: 3600, accelerate: true });
      const [regional] = await direct.signParts(upload, [2], { expiresInSeconds: 3600 });
      const acceleratedUrl = new URL(accelerated?.url ?? '');
      expect(acceleratedUrl.host).toBe('media-eu.s3-accelerate.amazonaws.com');
      expect(acceleratedUrl.searchParams.get('partNumber')).toBe('2');
      expect(acceleratedUrl.searchParams.get('uploadId')).toBe('up-1');
      expect(new URL(regional?.url ?? '').host).toBe('media-eu.s3.eu-west-1.amazonaws.com');
      for (const url of [accelerated?.url, regional?.url]) {
        expect(url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
      }
    } finally {
      await store.close();
    }
  });
});
