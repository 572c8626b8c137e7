import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { mediaMetadata, mediaProbes, type ProbedSections } from '../../db/schema/index.ts';

/** One object of one account: what probes and custom metadata are kept per. */
export interface ObjectRef {
  organizationId: string;
  cloudAccountId: string;
  bucketName: string;
  path: string;
}

/** The version of an object's bytes a probe read: its ETag (or last-modified time) and its size. */
export interface ObjectVersion {
  version: string;
  size: number;
}

export type MetadataRow = typeof mediaMetadata.$inferSelect;

/** Which rows are of one object; the path is matched through its MD5 too, as the unique indexes hold it. */
const objectOf = (table: typeof mediaProbes | typeof mediaMetadata, ref: ObjectRef) =>
  and(
    eq(table.organizationId, ref.organizationId),
    eq(table.cloudAccountId, ref.cloudAccountId),
    eq(table.bucketName, ref.bucketName),
    sql`md5(${table.path}) = md5(${ref.path})`,
    eq(table.path, ref.path),
  );

/** SQL of media info's probe cache and of custom metadata (issue 26); every query names the organisation. */
export class MediaRepo {
  constructor(readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: MediaRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new MediaRepo(tx as unknown as Database)));
  }

  /**
   * The kept probe of this version of the object: `undefined` when none is kept for it (never probed, or probed
   * at another version), `null` sections when that version was found not to be media.
   */
  async probeOf(ref: ObjectRef, at: ObjectVersion): Promise<{ sections: ProbedSections | null } | undefined> {
    const [row] = await this.orm
      .select({ sections: mediaProbes.sections })
      .from(mediaProbes)
      .where(
        and(objectOf(mediaProbes, ref), eq(mediaProbes.version, at.version), eq(mediaProbes.size, at.size)),
      );
    return row;
  }

  /** Keeps the probe of a version, replacing the one of an earlier version. */
  async keepProbe(ref: ObjectRef, at: ObjectVersion, sections: ProbedSections | null): Promise<void> {
    // Raw SQL: the conflict target is the unique index's expression md5(path), which drizzle's builder cannot name.
    await this.orm.execute(sql`
      insert into media_probes (organization_id, cloud_account_id, bucket_name, path, version, size, sections)
      values (${ref.organizationId}, ${ref.cloudAccountId}, ${ref.bucketName}, ${ref.path}, ${at.version},
        ${at.size}, ${sections === null ? null : JSON.stringify(sections)}::jsonb)
      on conflict (cloud_account_id, bucket_name, md5(path)) do update
        set version = excluded.version, size = excluded.size, sections = excluded.sections, probed_at = now()`);
  }

  /** The custom metadata of one object, oldest first. */
  async metadataOf(ref: ObjectRef): Promise<MetadataRow[]> {
    return this.orm
      .select()
      .from(mediaMetadata)
      .where(objectOf(mediaMetadata, ref))
      .orderBy(asc(mediaMetadata.createdAt), asc(mediaMetadata.name));
  }

  /** Adds one entry; a second of the same name on the same object fails with the unique index's 23505. */
  async addMetadata(
    ref: ObjectRef,
    entry: { name: string; value: string; createdBy: string | null },
  ): Promise<MetadataRow> {
    const [row] = await this.orm
      .insert(mediaMetadata)
      .values({ ...ref, ...entry })
      .returning();
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  async findMetadata(organizationId: string, id: string): Promise<MetadataRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(mediaMetadata)
      .where(and(eq(mediaMetadata.organizationId, organizationId), eq(mediaMetadata.id, id)));
    return row;
  }

  async deleteMetadata(organizationId: string, id: string): Promise<MetadataRow | undefined> {
    const [row] = await this.orm
      .delete(mediaMetadata)
      .where(and(eq(mediaMetadata.organizationId, organizationId), eq(mediaMetadata.id, id)))
      .returning();
    return row;
  }

  /**
   * Forgets what Cumulo keeps of deleted objects (their custom metadata and kept probe), so a new object at the
   * same key starts bare. Other modules call it with the keys a provider reported deleted.
   */
  async forgetObjects(
    organizationId: string,
    cloudAccountId: string,
    bucketName: string,
    paths: readonly string[],
  ): Promise<void> {
    if (paths.length === 0) return;
    const keys = [...new Set(paths)];
    for (const table of [mediaMetadata, mediaProbes]) {
      await this.orm
        .delete(table)
        .where(
          and(
            eq(table.organizationId, organizationId),
            eq(table.cloudAccountId, cloudAccountId),
            eq(table.bucketName, bucketName),
            inArray(table.path, keys),
          ),
        );
    }
  }
}
