import { and, desc, eq, inArray, lt, or } from 'drizzle-orm';
import type { EncodingJobStatus } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { encodingJobs } from '../../db/schema/index.ts';

export type EncodingJobRow = typeof encodingJobs.$inferSelect;
/** A job about to be written; its id is chosen first so that its quota reservation can name it. */
export type NewEncodingJob = typeof encodingJobs.$inferInsert & { id: string };

/** A job that has not ended: a cancel stops it, a remove refuses it. */
export const LIVE_STATUSES: EncodingJobStatus[] = ['New', 'Processing'];
const ENDED_STATUSES: EncodingJobStatus[] = ['Finished', 'Stopped', 'Error'];

/** SQL of encoding jobs. The API's queries are scoped to one organisation; the runner's work by id. */
export class EncodingRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: EncodingRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new EncodingRepo(tx as unknown as Database)));
  }

  async insert(values: NewEncodingJob[]): Promise<EncodingJobRow[]> {
    return this.orm.insert(encodingJobs).values(values).returning();
  }

  async find(organizationId: string, id: string): Promise<EncodingJobRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(encodingJobs)
      .where(and(eq(encodingJobs.id, id), eq(encodingJobs.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  async findById(id: string): Promise<EncodingJobRow | undefined> {
    const [row] = await this.orm.select().from(encodingJobs).where(eq(encodingJobs.id, id)).limit(1);
    return row;
  }

  /** The jobs waiting or running, then the `endedKept` that ended last, newest first in each. */
  async list(organizationId: string, endedKept: number): Promise<EncodingJobRow[]> {
    const [live, ended] = await Promise.all([
      this.orm
        .select()
        .from(encodingJobs)
        .where(
          and(eq(encodingJobs.organizationId, organizationId), inArray(encodingJobs.status, LIVE_STATUSES)),
        )
        .orderBy(desc(encodingJobs.createdAt), desc(encodingJobs.id)),
      this.orm
        .select()
        .from(encodingJobs)
        .where(
          and(eq(encodingJobs.organizationId, organizationId), inArray(encodingJobs.status, ENDED_STATUSES)),
        )
        .orderBy(desc(encodingJobs.createdAt), desc(encodingJobs.id))
        .limit(endedKept),
    ]);
    return [...live, ...ended];
  }

  /** New (or Processing again, on a retried job) → Processing; undefined when the job ended or is gone. */
  async start(id: string): Promise<EncodingJobRow | undefined> {
    const [row] = await this.orm
      .update(encodingJobs)
      .set({ status: 'Processing', startedAt: new Date(), progress: 0, timeLeft: null })
      .where(and(eq(encodingJobs.id, id), inArray(encodingJobs.status, LIVE_STATUSES)))
      .returning();
    return row;
  }

  /** Writes progress while the job is Processing; false once it is not (a cancel). */
  async progress(id: string, progress: number, timeLeft: number | null): Promise<boolean> {
    const rows = await this.orm
      .update(encodingJobs)
      .set({ progress, timeLeft })
      .where(and(eq(encodingJobs.id, id), eq(encodingJobs.status, 'Processing')))
      .returning({ id: encodingJobs.id });
    return rows.length > 0;
  }

  async statusOf(id: string): Promise<EncodingJobStatus | undefined> {
    const [row] = await this.orm
      .select({ status: encodingJobs.status })
      .from(encodingJobs)
      .where(eq(encodingJobs.id, id))
      .limit(1);
    return row?.status;
  }

  /** Processing → Finished with its outputs; undefined when it was cancelled meanwhile. */
  async finish(id: string, outputs: string[]): Promise<EncodingJobRow | undefined> {
    const [row] = await this.orm
      .update(encodingJobs)
      .set({ status: 'Finished', progress: 100, timeLeft: 0, outputs, finishedAt: new Date() })
      .where(and(eq(encodingJobs.id, id), eq(encodingJobs.status, 'Processing')))
      .returning();
    return row;
  }

  /** A live job → Error with its reason; undefined when it had ended already. */
  async fail(id: string, error: string): Promise<EncodingJobRow | undefined> {
    const [row] = await this.orm
      .update(encodingJobs)
      .set({ status: 'Error', error, timeLeft: null, finishedAt: new Date() })
      .where(and(eq(encodingJobs.id, id), inArray(encodingJobs.status, LIVE_STATUSES)))
      .returning();
    return row;
  }

  /** A live job → Stopped; undefined when it had ended already (or is another organisation's). */
  async stop(organizationId: string, id: string): Promise<EncodingJobRow | undefined> {
    const [row] = await this.orm
      .update(encodingJobs)
      .set({ status: 'Stopped', timeLeft: null, finishedAt: new Date() })
      .where(
        and(
          eq(encodingJobs.id, id),
          eq(encodingJobs.organizationId, organizationId),
          inArray(encodingJobs.status, LIVE_STATUSES),
        ),
      )
      .returning();
    return row;
  }

  /** Jobs New since before `before`, or Processing since before it: the sweep asks the queue about them. */
  async liveSince(before: Date, limit: number): Promise<EncodingJobRow[]> {
    return this.orm
      .select()
      .from(encodingJobs)
      .where(
        or(
          and(eq(encodingJobs.status, 'New'), lt(encodingJobs.createdAt, before)),
          and(eq(encodingJobs.status, 'Processing'), lt(encodingJobs.startedAt, before)),
        ),
      )
      .orderBy(encodingJobs.createdAt)
      .limit(limit);
  }

  /** Deletes an ended job; false when it is live (or gone). */
  async remove(organizationId: string, id: string): Promise<boolean> {
    const rows = await this.orm
      .delete(encodingJobs)
      .where(
        and(
          eq(encodingJobs.id, id),
          eq(encodingJobs.organizationId, organizationId),
          inArray(encodingJobs.status, ENDED_STATUSES),
        ),
      )
      .returning({ id: encodingJobs.id });
    return rows.length > 0;
  }
}
