import type { ObjectInfo } from '@cumulo/storage';
import type { Logger } from '../../logger.ts';
import type { CopiedObject, SearchRepo } from './search.repo.ts';

/** What the index needs of an object: a listing's or a stat's `ObjectInfo` fits; metadata absent is unknown. */
export type IndexableObject = Pick<ObjectInfo, 'key' | 'size' | 'lastModified' | 'contentType'> & {
  metadata?: Record<string, string>;
};

/**
 * Pages of one walk written at once: PostgreSQL spends about 60 µs of one core per object keeping the row and its
 * trigram and full-text indexes (bench/media-search), so a walk of a large bucket is bound by one backend's CPU;
 * two pages at once (disjoint keys, no conflicts between them) use two.
 */
const WALK_WRITES_IN_FLIGHT = 2;

/** A walk of one bucket in progress: pages go in as they are listed; `finish` removes what the walk did not see. */
interface BucketReplacement {
  add(objects: IndexableObject[]): Promise<void>;
  finish(): Promise<void>;
}

/**
 * Keeps the media-search index fresh (issue 26 point 4): the bucket inventory replaces a bucket's rows, uploads and
 * deletes change single objects. Every call names the organisation; rows of one organisation are never touched by
 * another's calls. A failed index write is logged and never fails the upload, delete or walk it follows: the
 * index is a copy, and the next inventory of the bucket repairs it.
 */
export class SearchIndex {
  constructor(
    private readonly repo: SearchRepo,
    private readonly log: Logger,
  ) {}

  async upsertObjects(organizationId: string, accountId: string, bucket: string, objects: IndexableObject[]) {
    await this.#quietly('upsert', bucket, () =>
      this.repo.upsert(organizationId, accountId, bucket, objects.map(indexed), null),
    );
  }

  /**
   * Objects a transfer, sync or replication batch copied (one statement per call: the transfers hook passes a page
   * of its items), with what the index knows of their sources.
   */
  async recordCopies(
    organizationId: string,
    destination: { accountId: string; bucket: string },
    source: { accountId: string; bucket: string } | null,
    copies: CopiedObject[],
  ) {
    await this.#quietly('copies', destination.bucket, () =>
      this.repo.upsertCopies(organizationId, destination, source, copies),
    );
  }

  async removeObjects(organizationId: string, accountId: string, bucket: string, keys: string[]) {
    await this.#quietly('remove', bucket, () => this.repo.remove(organizationId, accountId, bucket, keys));
  }

  /** Everything under a folder, or the whole bucket with ''. */
  async removePrefix(organizationId: string, accountId: string, bucket: string, prefix: string) {
    await this.#quietly('remove prefix', bucket, () =>
      this.repo.removePrefix(organizationId, accountId, bucket, prefix),
    );
  }

  /** Custom metadata (category Custom) or media info of one object, for the media-info part's hooks. */
  async setCustomMetadata(
    organizationId: string,
    accountId: string,
    bucket: string,
    key: string,
    metadata: Record<string, string>,
  ) {
    await this.#quietly('custom metadata', bucket, () =>
      this.repo.setMetadata(organizationId, accountId, bucket, key, 'custom_metadata', metadata),
    );
  }

  async setMediaInfo(
    organizationId: string,
    accountId: string,
    bucket: string,
    key: string,
    info: Record<string, unknown> | null,
  ) {
    await this.#quietly('media info', bucket, () =>
      this.repo.setMetadata(organizationId, accountId, bucket, key, 'media_info', info),
    );
  }

  /**
   * Starts replacing a bucket's rows with what a walk sees, one statement per listing page. Up to
   * `WALK_WRITES_IN_FLIGHT` pages are written at once while the walk lists the next (`add` waits only when that
   * many are in flight), so listing and indexing overlap, and memory holds three pages whatever the bucket holds. Rows are marked with the walk's start on the
   * database clock; `finish` waits for the last write, then removes the rows not marked since, which a hook that ran
   * during the walk (an upload: marked later) survives. A walk that fails, or a page the index could not write,
   * never sweeps: the index keeps the rows it had.
   */
  async replaceBucket(organizationId: string, accountId: string, bucket: string): Promise<BucketReplacement> {
    let startedAt: Date;
    try {
      startedAt = await this.repo.now();
    } catch (error) {
      this.log.warn({ err: error, bucket }, 'media search index walk start failed');
      return { add: async () => undefined, finish: async () => undefined };
    }
    let complete = true;
    const writing: Array<Promise<boolean>> = [];
    return {
      add: async (objects) => {
        if (writing.length >= WALK_WRITES_IN_FLIGHT) complete = (await writing.shift()) !== false && complete;
        if (!complete) return;
        const rows = objects.map(indexed);
        writing.push(
          this.#quietly('walk page', bucket, () =>
            this.repo.upsert(organizationId, accountId, bucket, rows, startedAt),
          ),
        );
      },
      finish: async () => {
        complete = (await Promise.all(writing)).every(Boolean) && complete;
        if (!complete) return;
        await this.#quietly('walk sweep', bucket, () =>
          this.repo.sweep(organizationId, accountId, bucket, startedAt),
        );
      },
    };
  }

  async #quietly(what: string, bucket: string, work: () => Promise<unknown>): Promise<boolean> {
    try {
      await work();
      return true;
    } catch (error) {
      this.log.warn({ err: error, bucket }, `media search index ${what} failed`);
      return false;
    }
  }
}

/** An object as the index keeps it; a listing's empty metadata is "unknown", not "none". */
function indexed(object: IndexableObject) {
  return {
    key: object.key,
    size: object.size,
    lastModified: object.lastModified,
    contentType: object.contentType,
    userMetadata: object.metadata && Object.keys(object.metadata).length > 0 ? object.metadata : undefined,
  };
}

/**
 * A probe's sections as the index keeps them: the container's `general`, and the first video and first audio stream
 * as `video` and `audio`, so that `metadata.video.codec` names the clip's video codec (a filter path has no index).
 */
export function indexedMediaInfo(sections: {
  general: Record<string, unknown>;
  video: Array<Record<string, unknown>>;
  audio: Array<Record<string, unknown>>;
}): Record<string, unknown> {
  return { general: sections.general, video: sections.video[0] ?? {}, audio: sections.audio[0] ?? {} };
}
