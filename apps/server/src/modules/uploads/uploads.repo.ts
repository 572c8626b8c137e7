import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { uploadReports, uploadSessions } from '../../db/schema/index.ts';

const REPORT_BATCH = 1000;

export type UploadSessionRow = typeof uploadSessions.$inferSelect;
type UploadReportRow = typeof uploadReports.$inferSelect;

/** SQL of direct-upload sessions and reports; every query but the sweep's is scoped to one organisation. */
export class UploadsRepo {
  constructor(private readonly orm: Database) {}

  async insertSession(values: typeof uploadSessions.$inferInsert): Promise<UploadSessionRow> {
    const [row] = await this.orm.insert(uploadSessions).values(values).returning();
    if (!row) throw new Error('upload session insert returned nothing');
    return row;
  }

  /** One statement for a batch of small files (at most UPLOAD_BATCH_MAX rows), in the order given. */
  async insertSessions(values: Array<typeof uploadSessions.$inferInsert>): Promise<UploadSessionRow[]> {
    const rows = await this.orm.insert(uploadSessions).values(values).returning();
    if (rows.length !== values.length) throw new Error('upload session batch insert returned too few rows');
    return rows;
  }

  /** The sessions of `ids` that belong to this organisation and were started by this user. */
  async findOwnSessions(organizationId: string, userId: string, ids: string[]): Promise<UploadSessionRow[]> {
    return this.orm
      .select()
      .from(uploadSessions)
      .where(
        and(
          inArray(uploadSessions.id, ids),
          eq(uploadSessions.organizationId, organizationId),
          eq(uploadSessions.userId, userId),
        ),
      );
  }

  async findSession(organizationId: string, id: string): Promise<UploadSessionRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(uploadSessions)
      .where(and(eq(uploadSessions.id, id), eq(uploadSessions.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  /** The newest active session of the same local file to the same place: the one a re-pick resumes. */
  async findResumable(where: {
    organizationId: string;
    cloudAccountId: string;
    bucketName: string;
    objectKey: string;
    fingerprint: string;
    size: number;
  }): Promise<UploadSessionRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(uploadSessions)
      .where(
        and(
          eq(uploadSessions.organizationId, where.organizationId),
          eq(uploadSessions.cloudAccountId, where.cloudAccountId),
          eq(uploadSessions.bucketName, where.bucketName),
          eq(uploadSessions.objectKey, where.objectKey),
          eq(uploadSessions.fingerprint, where.fingerprint),
          eq(uploadSessions.size, where.size),
          eq(uploadSessions.status, 'active'),
        ),
      )
      .orderBy(desc(uploadSessions.updatedAt))
      .limit(1);
    return row;
  }

  /** Records activity (signing, resuming), which keeps the session away from the sweep. */
  async touch(id: string, values: Partial<Pick<UploadSessionRow, 'providerUploadId'>> = {}): Promise<void> {
    await this.orm
      .update(uploadSessions)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(uploadSessions.id, id));
  }

  /** Ends an active session; only the call that wins the change gets the row (a second abort is a no-op). */
  async finish(id: string, status: 'complete' | 'aborted'): Promise<UploadSessionRow | undefined> {
    const [row] = await this.orm
      .update(uploadSessions)
      .set({ status, updatedAt: new Date() })
      .where(and(eq(uploadSessions.id, id), eq(uploadSessions.status, 'active')))
      .returning();
    return row;
  }

  /** Ends several active sessions in one statement (batch completion). */
  async finishMany(ids: string[], status: 'complete' | 'aborted'): Promise<void> {
    if (ids.length === 0) return;
    await this.orm
      .update(uploadSessions)
      .set({ status, updatedAt: new Date() })
      .where(and(inArray(uploadSessions.id, ids), eq(uploadSessions.status, 'active')));
  }

  /**
   * The sessions one batch call opened share its sealed handle (`provider_upload_id`), and with it the batch's
   * quota reservation: how many of them are still active, and the bytes of those completed.
   */
  async batchState(session: UploadSessionRow): Promise<{ active: number; completedBytes: number }> {
    const [row] = await this.orm
      .select({
        active: sql<string>`count(*) filter (where ${uploadSessions.status} = 'active')`,
        completedBytes: sql<string>`coalesce(sum(${uploadSessions.size}) filter (where ${uploadSessions.status} = 'complete'), 0)`,
      })
      .from(uploadSessions)
      .where(
        and(
          eq(uploadSessions.organizationId, session.organizationId),
          eq(uploadSessions.cloudAccountId, session.cloudAccountId),
          eq(uploadSessions.bucketName, session.bucketName),
          eq(uploadSessions.providerUploadId, session.providerUploadId),
        ),
      );
    return { active: Number(row?.active ?? 0), completedBytes: Number(row?.completedBytes ?? 0) };
  }

  /** Active sessions with no activity since `before`, oldest first, for the sweep (all organisations). */
  async stale(before: Date, limit: number): Promise<UploadSessionRow[]> {
    return this.orm
      .select()
      .from(uploadSessions)
      .where(and(eq(uploadSessions.status, 'active'), lt(uploadSessions.updatedAt, before)))
      .orderBy(asc(uploadSessions.updatedAt))
      .limit(limit);
  }

  async insertReports(rows: Array<typeof uploadReports.$inferInsert>): Promise<number> {
    // A report may name 10 000 files; PostgreSQL takes at most 65 535 parameters per statement.
    return this.orm.transaction(async (tx) => {
      let count = 0;
      for (let start = 0; start < rows.length; start += REPORT_BATCH) {
        const inserted = await tx
          .insert(uploadReports)
          .values(rows.slice(start, start + REPORT_BATCH))
          .returning({ id: uploadReports.id });
        count += inserted.length;
      }
      return count;
    });
  }

  async reports(organizationId: string): Promise<UploadReportRow[]> {
    return this.orm
      .select()
      .from(uploadReports)
      .where(eq(uploadReports.organizationId, organizationId))
      .orderBy(asc(uploadReports.createdAt));
  }
}
