import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Storage } from '@google-cloud/storage';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleDirectUpload } from './google-direct-upload.ts';

const MiB = 1024 * 1024;

/**
 * No GCS emulator can be installed here, so a local HTTP server plays a resumable session URI as the GCS docs
 * describe it (308 with a Range header while incomplete, 200 once complete, 499 on cancel). Opening the session
 * (start) goes through the Google library and is not covered here.
 */
describe('GCS direct upload against a local server playing a resumable session URI (mocked: no GCS emulator)', () => {
  let server: Server;
  let sessionUri: string;
  let held = 0;
  const requests: Array<{ method: string; contentRange: string | undefined }> = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      requests.push({ method: req.method ?? '', contentRange: req.headers['content-range'] });
      req.resume();
      req.on('end', () => {
        if (req.method === 'DELETE') {
          res.statusCode = 499;
        } else if (held === 12 * MiB) {
          res.statusCode = 200;
        } else {
          res.statusCode = 308;
          if (held > 0) res.setHeader('Range', `bytes=0-${held - 1}`);
        }
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    sessionUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload/session?upload_id=abc`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests.length = 0;
  });

  const direct = googleDirectUpload(new Storage({ projectId: 'p' }), (error) => {
    throw error;
  });
  const upload = () => ({ bucket: 'b', key: 'k', uploadId: sessionUri, size: 12 * MiB, partSize: 5 * MiB });

  it('places each chunk with Content-Range on the session URI', async () => {
    const targets = await direct.signParts(upload(), [1, 3], { expiresInSeconds: 3600 });
    expect(targets).toEqual([
      { partNumber: 1, url: sessionUri, headers: { 'Content-Range': `bytes 0-${5 * MiB - 1}/${12 * MiB}` } },
      {
        partNumber: 3,
        url: sessionUri,
        headers: { 'Content-Range': `bytes ${10 * MiB}-${12 * MiB - 1}/${12 * MiB}` },
      },
    ]);
  });

  it('reads the finished parts from the bytes the session holds (a query PUT with bytes */size)', async () => {
    held = 0;
    expect(await direct.listParts(upload())).toEqual([]);
    held = 10 * MiB + 3;
    expect(await direct.listParts(upload())).toEqual([
      { partNumber: 1, size: 5 * MiB, etag: null },
      { partNumber: 2, size: 5 * MiB, etag: null },
    ]);
    expect(requests.map((r) => r.contentRange)).toEqual([`bytes */${12 * MiB}`, `bytes */${12 * MiB}`]);
  });

  it('completes only when every byte arrived', async () => {
    held = 10 * MiB;
    await expect(direct.complete(upload(), [], {})).rejects.toThrow(/holds 10485760 of 12582912 bytes/);
    held = 12 * MiB;
    await expect(direct.complete(upload(), [], {})).resolves.toEqual({ etag: null });
  });

  it('cancels the session with a DELETE (GCS answers 499)', async () => {
    await direct.abort(upload());
    expect(requests).toEqual([{ method: 'DELETE', contentRange: undefined }]);
  });
});
