import type { Readable } from 'node:stream';
import type { ObjectInfo, ObjectStore } from '@cumulo/storage';
import { ReportError, type ReportFile, type ReportFileFormat, type ReportPeriod } from './report-types.ts';

/** A manifest is a few kilobytes; one far larger is not a manifest, and is not read whole into memory. */
const MANIFEST_MAX_BYTES = 8 * 1024 * 1024;

/** Legacy CUR: `<prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json` (the top-level one only). */
const LEGACY_MANIFEST = /^(?:(.*)\/)?([^/]+)\/(\d{8})-(\d{8})\/([^/]+)-Manifest\.json$/;
/** CUR 2.0: `<prefix>/<export>/metadata/BILLING_PERIOD=YYYY-MM/[<execution>/]<export>-Manifest.json`. */
const CUR2_MANIFEST =
  /^(?:(.*)\/)?([^/]+)\/metadata\/BILLING_PERIOD=(\d{4}-\d{2})\/(?:[^/]+\/)?([^/]+)-Manifest\.json$/;

/** Where a billing bucket's reports are: the bucket, and a key prefix when the account saved `bucket/prefix`. */
export function billingLocation(billingBucket: string): { bucket: string; prefix: string } {
  const [bucket = '', ...rest] = billingBucket.split('/');
  const prefix = rest.filter((part) => part !== '').join('/');
  return { bucket, prefix: prefix === '' ? '' : `${prefix}/` };
}

/**
 * Finds every report period in a billing bucket, of both layouts, each as its current manifest describes it. The
 * listing is streamed page by page and only manifest keys are kept (a handful per period), never the data keys.
 * Throws ReportError naming the key of a manifest that cannot be understood, and the store's own error when the
 * bucket cannot be listed or read.
 */
export async function discoverReportPeriods(
  store: ObjectStore,
  billingBucket: string,
): Promise<ReportPeriod[]> {
  const { bucket, prefix } = billingLocation(billingBucket);
  const legacy: ObjectInfo[] = [];
  /** CUR 2.0 in "create new" mode keeps one manifest per execution: the newest of a period is its current one. */
  const cur2 = new Map<string, ObjectInfo>();
  for await (const page of store.list(bucket, { prefix })) {
    for (const object of page.objects) {
      const legacyMatch = LEGACY_MANIFEST.exec(object.key);
      if (legacyMatch && legacyMatch[2] === legacyMatch[5]) {
        legacy.push(object);
        continue;
      }
      const cur2Match = CUR2_MANIFEST.exec(object.key);
      if (cur2Match && cur2Match[2] === cur2Match[4]) {
        const periodKey = `${cur2Match[2]}\n${cur2Match[3]}`;
        const seen = cur2.get(periodKey);
        if (!seen || newer(object, seen)) cur2.set(periodKey, object);
      }
    }
  }
  const periods: ReportPeriod[] = [];
  for (const manifest of legacy) periods.push(await legacyPeriod(store, bucket, manifest));
  for (const manifest of cur2.values()) periods.push(await cur2Period(store, bucket, manifest));
  return periods.sort(
    (a, b) =>
      a.report.localeCompare(b.report) ||
      a.period.localeCompare(b.period) ||
      a.layout.localeCompare(b.layout),
  );
}

const newer = (a: ObjectInfo, b: ObjectInfo) =>
  (a.lastModified?.getTime() ?? 0) > (b.lastModified?.getTime() ?? 0) ||
  ((a.lastModified?.getTime() ?? 0) === (b.lastModified?.getTime() ?? 0) && a.key > b.key);

/** The version of a manifest that names no delivery of its own (overwrite mode): its ETag, else its date. */
const overwriteVersion = (manifest: ObjectInfo) =>
  manifest.etag ? `etag:${manifest.etag}` : `modified:${manifest.lastModified?.toISOString() ?? ''}`;

async function legacyPeriod(store: ObjectStore, bucket: string, manifest: ObjectInfo): Promise<ReportPeriod> {
  const document = await readManifest(store, bucket, manifest);
  const fail = (what: string) => new ReportError(`the manifest ${what}`, manifest.key);
  const reportKeys = document.reportKeys;
  if (!Array.isArray(reportKeys) || !reportKeys.every((k): k is string => typeof k === 'string')) {
    throw fail('has no list of reportKeys');
  }
  const billingPeriod = document.billingPeriod as { start?: unknown } | undefined;
  const start = typeof billingPeriod?.start === 'string' ? billingPeriod.start : '';
  const period = /^(\d{4})(\d{2})\d{2}/.exec(start) ?? /^(\d{4})-(\d{2})-\d{2}/.exec(start);
  if (!period) throw fail('has no billingPeriod.start');
  const compression = document.compression;
  const format = legacyFormat(compression);
  if (!format) throw fail(`names an unknown compression ${JSON.stringify(compression)}`);
  const assemblyId = typeof document.assemblyId === 'string' ? document.assemblyId : '';
  // The report keys sit in the assembly's own folder unless the report overwrites one delivery in place.
  const inAssemblyFolder = assemblyId !== '' && reportKeys.some((k) => k.includes(`/${assemblyId}/`));
  const match = LEGACY_MANIFEST.exec(manifest.key);
  return {
    layout: 'cur-legacy',
    report: match?.[2] ?? '',
    period: `${period[1]}-${period[2]}`,
    manifestKey: manifest.key,
    version: inAssemblyFolder ? assemblyId : overwriteVersion(manifest),
    files: reportKeys.map((key) => ({ key, format })),
  };
}

function legacyFormat(compression: unknown): ReportFileFormat | null {
  if (compression === 'GZIP') return 'csv.gz';
  if (compression === 'ZIP') return 'csv.zip';
  if (compression === 'Parquet') return 'parquet';
  if (compression === undefined || compression === 'NONE') return 'csv';
  return null;
}

async function cur2Period(store: ObjectStore, bucket: string, manifest: ObjectInfo): Promise<ReportPeriod> {
  const document = await readManifest(store, bucket, manifest);
  const fail = (what: string) => new ReportError(`the manifest ${what}`, manifest.key);
  const dataFiles = document.dataFiles;
  if (!Array.isArray(dataFiles) || !dataFiles.every((f): f is string => typeof f === 'string')) {
    throw fail('has no list of dataFiles');
  }
  const files: ReportFile[] = [];
  for (const uri of dataFiles) {
    const key = objectKeyOf(uri);
    const format = cur2Format(key);
    if (!format) throw fail(`lists a data file of an unknown format: ${uri}`);
    files.push({ key, format });
  }
  const match = CUR2_MANIFEST.exec(manifest.key);
  const executionId = typeof document.executionId === 'string' ? document.executionId : '';
  return {
    layout: 'cur2',
    report: match?.[2] ?? '',
    period: match?.[3] ?? '',
    manifestKey: manifest.key,
    version: executionId === '' ? overwriteVersion(manifest) : executionId,
    files,
  };
}

/**
 * A data file's key from the manifest's `s3://<bucket>/<key>` (a bare key is taken as it is). The files are read
 * from the billing bucket, where AWS delivers them beside their manifest.
 */
function objectKeyOf(uri: string): string {
  const s3 = /^s3:\/\/[^/]+\/(.+)$/.exec(uri);
  return s3?.[1] ?? uri.replace(/^\/+/, '');
}

function cur2Format(key: string): ReportFileFormat | null {
  if (key.endsWith('.csv.gz')) return 'csv.gz';
  if (key.endsWith('.csv.zip')) return 'csv.zip';
  if (key.endsWith('.parquet') || key.endsWith('.snappy.parquet')) return 'parquet';
  if (key.endsWith('.csv')) return 'csv';
  return null;
}

async function readManifest(
  store: ObjectStore,
  bucket: string,
  manifest: ObjectInfo,
): Promise<Record<string, unknown>> {
  if (manifest.size > MANIFEST_MAX_BYTES) {
    throw new ReportError(`the manifest is ${manifest.size} bytes, too large to be one`, manifest.key);
  }
  const text = await readText(await store.read(bucket, manifest.key));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReportError(`the manifest is not JSON (${reason})`, manifest.key);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ReportError('the manifest is not a JSON object', manifest.key);
  }
  return parsed as Record<string, unknown>;
}

async function readText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}
