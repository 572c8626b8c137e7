import { and, asc, count, desc, eq, gte, lt, sql, sum } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { BATCH_STATUS, TRANSFER_TYPE } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { cloudAccounts, transferBatches, transferItems } from '../../db/schema/index.ts';
import type { TransferItemStatus } from '../../db/schema/transfers.ts';
import { batchProviderConditions, type BatchProviderFilter } from './transfers.repo.ts';

export interface HistoryBatchRow {
  id: string;
  sourceName: string | null;
  sourceBucket: string;
  destinationName: string | null;
  destinationBucket: string;
  totalSize: number;
  status: number;
  requestedAt: Date;
}

export interface HistoryItemRow {
  batchId: string;
  sourceKey: string;
  size: number;
  status: TransferItemStatus;
}

const sourceAccount = alias(cloudAccounts, 'source_account');
const destinationAccount = alias(cloudAccounts, 'destination_account');

/** Read-only SQL of the c2c history and usage calls; every query is scoped to one organisation. */
export class C2cRepo {
  constructor(private readonly orm: Database) {}

  /** Migration batches requested in [from, to) that pass `filter`, one page of them in `order`, and how many in all. */
  async historyPage(
    organizationId: string,
    window: { from: Date; to: Date },
    page: { order: 'asc' | 'desc'; skip: number; take: number },
    filter: BatchProviderFilter = {},
  ): Promise<{ rows: HistoryBatchRow[]; total: number }> {
    const where = and(
      eq(transferBatches.organizationId, organizationId),
      eq(transferBatches.transferType, TRANSFER_TYPE.migration),
      gte(transferBatches.requestedAt, window.from),
      lt(transferBatches.requestedAt, window.to),
      ...batchProviderConditions(filter),
    );
    const direction = page.order === 'asc' ? asc : desc;
    const [rows, [counted]] = await Promise.all([
      this.orm
        .select({
          id: transferBatches.id,
          sourceName: sourceAccount.name,
          sourceBucket: transferBatches.sourceBucket,
          destinationName: destinationAccount.name,
          destinationBucket: transferBatches.destinationBucket,
          totalSize: transferBatches.totalSize,
          status: transferBatches.status,
          requestedAt: transferBatches.requestedAt,
        })
        .from(transferBatches)
        .leftJoin(sourceAccount, eq(sourceAccount.id, transferBatches.sourceCloudAccountId))
        .leftJoin(destinationAccount, eq(destinationAccount.id, transferBatches.destinationCloudAccountId))
        .where(where)
        .orderBy(direction(transferBatches.requestedAt), direction(transferBatches.id))
        .offset(page.skip)
        .limit(page.take),
      this.orm.select({ total: count() }).from(transferBatches).where(where),
    ]);
    return {
      rows: rows.map((row) => ({ ...row, totalSize: Number(row.totalSize) })),
      total: counted?.total ?? 0,
    };
  }

  /** The first `perBatch` items (in planning order) of each batch: one indexed lateral scan per batch. */
  async firstItems(batchIds: string[], perBatch: number): Promise<HistoryItemRow[]> {
    if (batchIds.length === 0) return [];
    const result = await this.orm.execute<{
      batch_id: string;
      source_key: string;
      size: string;
      status: TransferItemStatus;
    }>(sql`
      select b.id as batch_id, i.source_key, i.size, i.status
      from unnest(array[${sql.join(
        batchIds.map((id) => sql`${id}`),
        sql`, `,
      )}]::uuid[]) as b(id)
      cross join lateral (
        select ${transferItems.sourceKey} as source_key, ${transferItems.size} as size,
               ${transferItems.status} as status
        from ${transferItems}
        where ${transferItems.batchId} = b.id
        order by ${transferItems.id}
        limit ${perBatch}
      ) as i`);
    return result.rows.map((row) => ({
      batchId: row.batch_id,
      sourceKey: row.source_key,
      size: Number(row.size),
      status: row.status,
    }));
  }

  /** Completed batches that finished in [from, to): how many, and the bytes they copied. */
  async completedUsage(
    organizationId: string,
    from: Date,
    to: Date,
  ): Promise<{ count: number; size: number }> {
    const [row] = await this.orm
      .select({ count: count(), size: sum(transferBatches.transferredSize) })
      .from(transferBatches)
      .where(
        and(
          eq(transferBatches.organizationId, organizationId),
          eq(transferBatches.status, BATCH_STATUS.completed),
          gte(transferBatches.finishedAt, from),
          lt(transferBatches.finishedAt, to),
        ),
      );
    return { count: row?.count ?? 0, size: Number(row?.size ?? 0) };
  }
}
