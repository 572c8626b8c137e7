/**
 * Object tags as S3 keeps them, for the test s3rver (s3rver-multipart.ts routes the calls here). s3rver 3.7.1
 * has GetObjectTagging and PutObjectTagging (it keeps the tag set in `<key>._S3rver_tagging.xml`), but it ignores
 * the tags a PutObject, CreateMultipartUpload or CopyObject carries in `x-amz-tagging`, keeps an object's tags when
 * a new PutObject replaces it, does not copy them with CopyObject, and never tells a GET or HEAD how many an object
 * has (`x-amz-tagging-count`), which is how a copying client knows to ask for them at all.
 */

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface TaggingStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
}

const taggingPath = (store: TaggingStore, bucket: string, key: string) =>
  store.getResourcePath(bucket, key, 'tagging.xml');

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The tag set of an `x-amz-tagging` header (URL query encoding), as the XML s3rver's GetObjectTagging serves. */
function taggingXml(header: string): string {
  const tags = [...new URLSearchParams(header)]
    .map(([key, value]) => `<Tag><Key>${escapeXml(key)}</Key><Value>${escapeXml(value)}</Value></Tag>`)
    .join('');
  return `<Tagging><TagSet>${tags}</TagSet></Tagging>`;
}

/**
 * After a write that replaced the object (PutObject, CompleteMultipartUpload): its tags are the ones the write
 * carried, and none when it carried none, as on S3.
 */
export async function setTagsOfWrite(
  store: TaggingStore,
  bucket: string,
  key: string,
  header: string | undefined,
): Promise<void> {
  const path = taggingPath(store, bucket, key);
  if (header) await writeFile(path, taggingXml(header));
  else await rm(path, { force: true });
}

/** After a CopyObject: the source's tags (x-amz-tagging-directive COPY, the default), or those of the request. */
export async function setTagsOfCopy(
  store: TaggingStore,
  source: { bucket: string; key: string },
  target: { bucket: string; key: string },
  directive: string | undefined,
  header: string | undefined,
): Promise<void> {
  if (directive === 'REPLACE') return setTagsOfWrite(store, target.bucket, target.key, header);
  const tags = await readFile(taggingPath(store, source.bucket, source.key), 'utf8').catch(() => null);
  if (tags === null) await rm(taggingPath(store, target.bucket, target.key), { force: true });
  else await writeFile(taggingPath(store, target.bucket, target.key), tags);
}

/** How many tags the object has (0 when none). */
export async function tagCountOf(store: TaggingStore, bucket: string, key: string): Promise<number> {
  const tags = await readFile(taggingPath(store, bucket, key), 'utf8').catch(() => '');
  return tags.match(/<Tag>/g)?.length ?? 0;
}

/** The `x-amz-tagging` header an upload was opened with: s3rver keeps the opening request's headers. */
export async function uploadTagging(uploadDirectory: string): Promise<string | undefined> {
  const headers = JSON.parse(await readFile(join(uploadDirectory, 'metadata'), 'utf8')) as Record<
    string,
    string | undefined
  >;
  return headers['x-amz-tagging'];
}
