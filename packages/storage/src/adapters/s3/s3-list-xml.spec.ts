import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingOf, parseListObjectsV2, withLeanListing } from './s3-list-xml.ts';

// The lean reader is checked against the SDK's own parser on the same bytes: a local HTTP server answers each
// document below, once read by the SDK alone and once through the lean reader. (A canned server, not a store:
// these are the odd documents real providers send that s3rver never does.)

const AWS_PAGE = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix><KeyCount>4</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><Contents><Key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;.txt</Key><LastModified>2024-05-01T10:11:12.000Z</LastModified><ETag>&quot;9e107d9d372bb6826bd81d3542a419d6&quot;</ETag><ChecksumAlgorithm>CRC32</ChecksumAlgorithm><Size>43</Size><Owner><ID>abc</ID><DisplayName>Key</DisplayName></Owner><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>smile 😀 line&#13;&#10;end&#x9;</Key><LastModified>2024-05-02T00:00:00.000Z</LastModified><ETag>"0123456789abcdef0123456789abcdef-3"</ETag><Size>15728640</Size><StorageClass>GLACIER</StorageClass><RestoreStatus><IsRestoreInProgress>false</IsRestoreInProgress></RestoreStatus></Contents><Contents><Key>  spaced  </Key><LastModified>2024-05-03T00:00:00.000Z</LastModified><ETag></ETag><Size>0</Size></Contents><Contents><Key>日本/ü.bin</Key><LastModified>2024-05-04T00:00:00.000Z</LastModified><ETag/><Size>9007199254740991</Size></Contents><CommonPrefixes><Prefix>photos/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>r&amp;d/</Prefix></CommonPrefixes><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>`;

const DOCUMENTS: Record<string, { status?: number; body: string }> = {
  aws: { body: AWS_PAGE },
  empty: {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>\n`,
  },
  comment: {
    body: `<ListBucketResult><!-- x --><Contents><Key>k</Key><Size>1</Size></Contents><IsTruncated>false</IsTruncated></ListBucketResult>`,
  },
  cdata: {
    body: `<ListBucketResult><Contents><Key><![CDATA[a<b]]></Key><Size>1</Size></Contents></ListBucketResult>`,
  },
  'url-encoded': {
    body: `<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>a%20b</Key><Size>1</Size></Contents></ListBucketResult>`,
  },
  'unknown-entity': {
    body: `<ListBucketResult><Contents><Key>a&nbsp;b</Key><Size>1</Size></Contents></ListBucketResult>`,
  },
  denied: {
    status: 403,
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`,
  },
};

let server: Server;
let client: S3Client;

beforeAll(async () => {
  server = createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname.split('/')[1] ?? '');
    const document = DOCUMENTS[name];
    if (!document) return response.writeHead(404).end();
    response.writeHead(document.status ?? 200, { 'content-type': 'application/xml' });
    // In small chunks, as a slow provider would send them.
    const bytes = Buffer.from(document.body);
    for (let offset = 0; offset < bytes.length; offset += 100)
      response.write(bytes.subarray(offset, offset + 100));
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
});

async function bothWays(bucket: string) {
  const bySdk = listingOf(await client.send(new ListObjectsV2Command({ Bucket: bucket })));
  const command = new ListObjectsV2Command({ Bucket: bucket });
  const lean = withLeanListing(command);
  const answer = await client.send(command);
  return { bySdk, lean: lean.listing, sdkLeftWith: answer };
}

describe('the lean ListObjectsV2 reader', () => {
  it('reads a provider page exactly as the SDK does: entities, references, spaces, empty ETags, any field order', async () => {
    const { bySdk, lean, sdkLeftWith } = await bothWays('aws');
    expect(lean).toEqual(bySdk);
    expect(lean?.contents.map((entry) => entry.key)).toEqual([
      `a & b <c> "d" 'e'.txt`,
      'smile 😀 line\r\nend\t',
      '  spaced  ',
      '日本/ü.bin',
    ]);
    expect(lean?.contents[3]?.size).toBe(Number.MAX_SAFE_INTEGER);
    expect(lean?.prefixes).toEqual(['photos/', 'r&d/']);
    expect(lean).toMatchObject({
      isTruncated: true,
      nextContinuationToken: '1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=',
    });
    // The SDK parsed nothing but an empty shell; the response metadata is still its own.
    expect(sdkLeftWith.Contents).toBeUndefined();
    expect(sdkLeftWith.$metadata.httpStatusCode).toBe(200);
  });

  it('reads an empty page', async () => {
    const { bySdk, lean } = await bothWays('empty');
    expect(lean).toEqual({ contents: [], prefixes: [], isTruncated: false, nextContinuationToken: null });
    expect(lean).toEqual(bySdk);
  });

  it.each(['comment', 'cdata', 'url-encoded', 'unknown-entity'])(
    'leaves a page with %s to the SDK, which then reads the original bytes',
    async (name) => {
      const { bySdk, lean, sdkLeftWith } = await bothWays(name);
      expect(lean).toBeNull();
      expect(listingOf(sdkLeftWith)).toEqual(bySdk);
      expect(bySdk.contents).toHaveLength(1);
    },
  );

  it('leaves error answers to the SDK, which throws the provider error', async () => {
    const command = new ListObjectsV2Command({ Bucket: 'denied' });
    const lean = withLeanListing(command);
    await expect(client.send(command)).rejects.toMatchObject({
      name: 'AccessDenied',
      message: 'Access Denied',
    });
    expect(lean.listing).toBeNull();
  });

  it('declines documents that are not a whole, well-formed listing', () => {
    const entry = '<Contents><Key>k</Key><Size>1</Size></Contents>';
    expect(parseListObjectsV2('')).toBeNull();
    expect(parseListObjectsV2(`<ListBucketResult>${entry}`)).toBeNull(); // cut short
    expect(parseListObjectsV2(`<ListAllMyBucketsResult>${entry}</ListAllMyBucketsResult>`)).toBeNull();
    expect(parseListObjectsV2(`<ListBucketResult>${entry}</Contents></ListBucketResult>`)).toBeNull();
    expect(
      parseListObjectsV2(
        '<ListBucketResult><Contents><Key>a & b</Key><Size>1</Size></Contents></ListBucketResult>',
      ),
    ).toBeNull();
    expect(
      parseListObjectsV2('<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>'),
    ).toBeNull();
    expect(
      parseListObjectsV2(
        '<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>',
      ),
    ).toBeNull();
    expect(
      parseListObjectsV2(
        '<ListBucketResult><Contents><Key>k</Key><Size>1.5</Size></Contents></ListBucketResult>',
      ),
    ).toBeNull();
    // A character reference outside the BMP (which the SDK's parser drops) reads as the character.
    expect(
      parseListObjectsV2(
        '<ListBucketResult><Contents><Key>&#x1F600;</Key><Size>1</Size></Contents></ListBucketResult>',
      )?.contents[0]?.key,
    ).toBe('😀');
    expect(parseListObjectsV2(`<ListBucketResult>${entry}</ListBucketResult>`)).toMatchObject({
      contents: [{ key: 'k', size: 1, lastModified: null, etag: null }],
    });
  });
});
