import { and, desc, eq, inArray, lt, or } from 'drizzle-orm';
import type { HybrikJobStatus } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { hybrikJobs, hybrikProfiles, hybrikSettings } from '../../db/schema/index.ts';

export type HybrikSettingsRow = typeof hybrikSettings.$inferSelect;
export type HybrikProfileRow = typeof hybrikProfiles.$inferSelect;
export type HybrikJobRow = typeof hybrikJobs.$inferSelect;

const LIVE: HybrikJobStatus[] = ['queued', 'active'];

/** SQL of Hybrik settings, profiles and jobs. The API's queries are scoped to one organisation; the runner's by id. */
export class HybrikRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: HybrikRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new HybrikRepo(tx as unknown as Database)));
  }

  async settings(organizationId: string): Promise<HybrikSettingsRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(hybrikSettings)
      .where(eq(hybrikSettings.organizationId, organizationId));
    return row;
  }

  async saveSettings(values: typeof hybrikSettings.$inferInsert): Promise<HybrikSettingsRow> {
    const [row] = await this.orm
      .insert(hybrikSettings)
      .values(values)
      .onConflictDoUpdate({
        target: hybrikSettings.organizationId,
        set: {
          cloudAccountId: values.cloudAccountId,
          bucket: values.bucket,
          path: values.path,
          updatedAt: new Date(),
        },
      })
      .returning();
    if (!row) throw new Error('hybrik settings not written');
    return row;
  }

  async insertProfile(values: typeof hybrikProfiles.$inferInsert): Promise<HybrikProfileRow> {
    const [row] = await this.orm.insert(hybrikProfiles).values(values).returning();
    if (!row) throw new Error('hybrik profile not written');
    return row;
  }

  async profiles(organizationId: string): Promise<HybrikProfileRow[]> {
    return this.orm
      .select()
      .from(hybrikProfiles)
      .where(eq(hybrikProfiles.organizationId, organizationId))
      .orderBy(desc(hybrikProfiles.createdAt), desc(hybrikProfiles.id));
  }

  async profile(organizationId: string, id: string): Promise<HybrikProfileRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(hybrikProfiles)
      .where(and(eq(hybrikProfiles.id, id), eq(hybrikProfiles.organizationId, organizationId)));
    return row;
  }

  async deleteProfile(organizationId: string, id: string): Promise<boolean> {
    const rows = await this.orm
      .delete(hybrikProfiles)
      .where(and(eq(hybrikProfiles.id, id), eq(hybrikProfiles.organizationId, organizationId)))
      .returning({ id: hybrikProfiles.id });
    return rows.length > 0;
  }

  async insertJob(values: typeof hybrikJobs.$inferInsert): Promise<HybrikJobRow> {
    const [row] = await this.orm.insert(hybrikJobs).values(values).returning();
    if (!row) throw new Error('hybrik job not written');
    return row;
  }

  /** One group's jobs, newest first. */
  async jobs(organizationId: string, status: HybrikJobStatus, limit: number): Promise<HybrikJobRow[]> {
    return this.orm
      .select()
      .from(hybrikJobs)
      .where(and(eq(hybrikJobs.organizationId, organizationId), eq(hybrikJobs.status, status)))
      .orderBy(desc(hybrikJobs.createdAt), desc(hybrikJobs.id))
      .limit(limit);
  }

  async job(organizationId: string, id: string): Promise<HybrikJobRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(hybrikJobs)
      .where(and(eq(hybrikJobs.id, id), eq(hybrikJobs.organizationId, organizationId)));
    return row;
  }

  async jobById(id: string): Promise<HybrikJobRow | undefined> {
    const [row] = await this.orm.select().from(hybrikJobs).where(eq(hybrikJobs.id, id));
    return row;
  }

  /** queued (or active again, on a retried job) → active; undefined when the job ended or is gone. */
  async start(id: string): Promise<HybrikJobRow | undefined> {
    const [row] = await this.orm
      .update(hybrikJobs)
      .set({ status: 'active', startedAt: new Date(), progress: 0, outputs: [] })
      .where(and(eq(hybrikJobs.id, id), inArray(hybrikJobs.status, LIVE)))
      .returning();
    return row;
  }

  /** Writes progress while the job is active; false once it is not (it was cancelled). */
  async progress(id: string, progress: number, outputs: string[]): Promise<boolean> {
    const rows = await this.orm
      .update(hybrikJobs)
      .set({ progress, outputs })
      .where(and(eq(hybrikJobs.id, id), eq(hybrikJobs.status, 'active')))
      .returning({ id: hybrikJobs.id });
    return rows.length > 0;
  }

  async complete(id: string, outputs: string[]): Promise<HybrikJobRow | undefined> {
    const [row] = await this.orm
      .update(hybrikJobs)
      .set({ status: 'completed', progress: 100, outputs, endedAt: new Date() })
      .where(and(eq(hybrikJobs.id, id), eq(hybrikJobs.status, 'active')))
      .returning();
    return row;
  }

  /** queued or active → failed with `error`, for a cancel; undefined when the job ended already. */
  async cancel(organizationId: string, id: string, error: string): Promise<HybrikJobRow | undefined> {
    const [row] = await this.orm
      .update(hybrikJobs)
      .set({ status: 'failed', error, endedAt: new Date() })
      .where(
        and(
          eq(hybrikJobs.id, id),
          eq(hybrikJobs.organizationId, organizationId),
          inArray(hybrikJobs.status, LIVE),
        ),
      )
      .returning();
    return row;
  }

  /** Jobs queued since before `before`, or active since before it: the sweep asks the queue about them. */
  async liveSince(before: Date, limit: number): Promise<HybrikJobRow[]> {
    return this.orm
      .select()
      .from(hybrikJobs)
      .where(
        or(
          and(eq(hybrikJobs.status, 'queued'), lt(hybrikJobs.createdAt, before)),
          and(eq(hybrikJobs.status, 'active'), lt(hybrikJobs.startedAt, before)),
        ),
      )
      .orderBy(hybrikJobs.createdAt)
      .limit(limit);
  }

  async statusOf(id: string): Promise<HybrikJobStatus | undefined> {
    const [row] = await this.orm
      .select({ status: hybrikJobs.status })
      .from(hybrikJobs)
      .where(eq(hybrikJobs.id, id));
    return row?.status;
  }

  async fail(id: string, error: string, outputs: string[]): Promise<HybrikJobRow | undefined> {
    const [row] = await this.orm
      .update(hybrikJobs)
      .set({ status: 'failed', error, outputs, endedAt: new Date() })
      .where(and(eq(hybrikJobs.id, id), inArray(hybrikJobs.status, LIVE)))
      .returning();
    return row;
  }
}
