import type { Readable } from 'node:stream';
import { analyticsMessages, type IngestTrigger } from '@cumulo/contract';
import { StorageError, type ObjectStore } from '@cumulo/storage';
import type { Logger } from '../../../logger.ts';
import type { CloudAccountsRepo } from '../../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../../cloud-accounts/store-registry.ts';
import type { AnalyticsRepo, RunOutcome } from '../analytics.repo.ts';
import { billingLocation, discoverReportPeriods } from './discover.ts';
import type { OpenReportFile } from './read-pool.ts';
import {
  ReportError,
  type LineItem,
  type ReportFile,
  type ReportLayout,
  type ReportPeriod,
  type RollupRow,
} from './report-types.ts';

/**
 * Streams one report file as batches of line items (`read-report.ts`: a batch per decompressed chunk or Parquet
 * row group, since a promise per line cost more than parsing it).
 */
type ReadLineItemBatches = (
  stream: Readable,
  file: ReportFile,
  layout: ReportLayout,
) => AsyncIterable<readonly LineItem[]>;
/** Folds a period's line items into its daily rollup rows (memory: one row per distinct key, not per line). */
type AggregateLineItems = (batches: AsyncIterable<readonly LineItem[]>) => Promise<RollupRow[]>;

/**
 * Folds a period's files into its rollup rows, reading them itself (engine.ts: several files at once in worker
 * threads); `open` gives a file's bytes and fails with a ReportError naming it.
 */
type AggregateReportFiles = (
  files: readonly ReportFile[],
  layout: ReportLayout,
  open: OpenReportFile,
) => Promise<RollupRow[]>;

export interface IngestEngine {
  readLineItemBatches: ReadLineItemBatches;
  aggregate: AggregateLineItems;
  /** When present, a period is read through it rather than through readLineItemBatches and aggregate here. */
  aggregateFiles?: AggregateReportFiles;
}

export interface IngestJob {
  organizationId: string;
  accountId: string;
  trigger: IngestTrigger;
}

/** Store errors that mean the account's keys cannot read the bucket: said on the account, not retried. */
const UNREADABLE: ReadonlySet<string> = new Set(['AccessDenied', 'InvalidCredentials', 'BucketNotFound']);

/**
 * One ingestion of an account's billing bucket: finds its report periods, and for each whose manifest version is
 * new reads its files into rollups, stages them and swaps them in (analytics.repo.ts `swapPeriod`). A period whose
 * read fails keeps its previous version; the run then fails with the file and line, after the other periods.
 */
export class IngestRun {
  constructor(
    private readonly repo: AnalyticsRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly engine: IngestEngine,
    private readonly log: Logger,
    /** Told how every run ended (the `cumulo_ingest_runs_total` counter). */
    private readonly onRunEnded: (state: RunOutcome['state']) => void = () => undefined,
  ) {}

  async run(job: IngestJob): Promise<RunOutcome | undefined> {
    const account = await this.accounts.find(job.organizationId, job.accountId);
    // A removed account's run has nothing to do (its rows went with it).
    if (!account) return undefined;
    const runId = await this.repo.startRun(job.organizationId, job.accountId, job.trigger);
    const outcome: RunOutcome = {
      state: 'succeeded',
      periodsSeen: 0,
      periodsReplaced: 0,
      periodsSkipped: 0,
      rows: 0,
      error: null,
    };
    try {
      if (!account.billingBucket) {
        outcome.state = 'failed';
        outcome.error = analyticsMessages.noBillingBucket(account.name);
        return outcome;
      }
      await this.repo.discardStaged(job.organizationId, job.accountId);
      const store = await this.stores.storeFor(account);
      let periods: ReportPeriod[];
      try {
        periods = await discoverReportPeriods(store, account.billingBucket);
      } catch (error) {
        if (error instanceof StorageError && UNREADABLE.has(error.code)) {
          const message = analyticsMessages.bucketUnreadable(account.billingBucket, error.message);
          await this.repo.setBillingError(job.organizationId, job.accountId, message);
          outcome.state = 'failed';
          outcome.error = message;
          return outcome;
        }
        throw error;
      }
      await this.repo.setBillingError(job.organizationId, job.accountId, null);
      // A bucket without a manifest of either layout is a wrong bucket or an unknown layout: said, not passed over.
      if (periods.length === 0) {
        outcome.state = 'failed';
        outcome.error = analyticsMessages.noReports(account.billingBucket);
        return outcome;
      }
      const current = await this.repo.currentPeriods(job.organizationId, job.accountId);
      const versionOf = new Map(current.map((p) => [periodKey(p), p.version]));
      const errors: string[] = [];
      outcome.periodsSeen = periods.length;
      for (const period of periods) {
        if (versionOf.get(periodKey(period)) === period.version) {
          outcome.periodsSkipped += 1;
          continue;
        }
        try {
          outcome.rows += await this.#replace(
            job,
            store,
            billingLocation(account.billingBucket).bucket,
            period,
          );
          outcome.periodsReplaced += 1;
        } catch (error) {
          if (!(error instanceof ReportError) && !(error instanceof StorageError)) throw error;
          errors.push(error.message);
        }
      }
      if (errors.length > 0) {
        outcome.state = 'failed';
        outcome.error = errors.join('\n');
      }
      return outcome;
    } catch (error) {
      if (error instanceof ReportError) {
        outcome.state = 'failed';
        outcome.error = error.message;
        return outcome;
      }
      // Unknown failures (the database, a network outage) fail the run in words and are retried by the queue.
      this.log.error({ err: error, accountId: job.accountId }, 'billing report ingestion failed');
      outcome.state = 'failed';
      outcome.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      this.onRunEnded(outcome.state);
      await this.repo.finishRun(job.organizationId, runId, outcome);
      this.log.info({ accountId: job.accountId, ...outcome }, 'billing report ingestion done');
    }
  }

  /** Reads the period's files into rollups, stages them and swaps them in; answers the line items read. */
  async #replace(job: IngestJob, store: ObjectStore, bucket: string, period: ReportPeriod): Promise<number> {
    const rollups = this.engine.aggregateFiles
      ? await this.engine.aggregateFiles(period.files, period.layout, (file) =>
          this.#open(store, bucket, file),
        )
      : await this.engine.aggregate(this.#batches(store, bucket, period));
    try {
      const stagedId = await this.repo.stagePeriod(job.organizationId, job.accountId, period, rollups);
      await this.repo.swapPeriod(job.organizationId, job.accountId, stagedId);
    } catch (error) {
      await this.repo.discardStaged(job.organizationId, job.accountId);
      throw error;
    }
    return rollups.reduce((sum, r) => sum + r.lineItems, 0);
  }

  /** Every line item of the period's files, in batches, one file streamed at a time. */
  async *#batches(
    store: ObjectStore,
    bucket: string,
    period: ReportPeriod,
  ): AsyncIterable<readonly LineItem[]> {
    for (const file of period.files) {
      const stream = await this.#open(store, bucket, file);
      try {
        yield* this.engine.readLineItemBatches(stream, file, period.layout);
      } finally {
        // A reader that stopped early (a bad line) leaves the rest of the download unread: release its socket.
        stream.destroy();
      }
    }
  }

  /** A report file's bytes; an object that cannot be read fails as that file. */
  async #open(store: ObjectStore, bucket: string, file: ReportFile): Promise<Readable> {
    try {
      return await store.read(bucket, file.key);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ReportError(`the report file cannot be read (${reason})`, file.key);
    }
  }
}

const periodKey = (p: { layout: string; report: string; period: string }) =>
  `${p.layout}\n${p.report}\n${p.period}`;
