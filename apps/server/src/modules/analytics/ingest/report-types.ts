/**
 * The shapes the billing-report ingestion passes between its parts (issue 24): discovery finds report periods in
 * a billing bucket, the reader streams their files as line items, the aggregator folds them into daily rollup
 * rows, and the repo swaps a period's rows in one transaction. Written first so each part is built to the same
 * seams; see ../README.md.
 */

/** The two report layouts AWS delivers into a bucket. */
export type ReportLayout =
  /** Legacy Cost and Usage Report: `<prefix>/<report>/<yyyymmdd-yyyymmdd>/[<assemblyId>/]`, a `<report>-Manifest.json`. */
  | 'cur-legacy'
  /** CUR 2.0 / Data Exports: `…/data/BILLING_PERIOD=YYYY-MM/` files, manifest under `…/metadata/`. */
  | 'cur2';

/** How one report file is stored. */
export type ReportFileFormat = 'csv' | 'csv.gz' | 'csv.zip' | 'parquet';

export interface ReportFile {
  key: string;
  format: ReportFileFormat;
  /** Bytes, when the listing or manifest says. */
  size?: number;
}

/** One billing period of one report as its current manifest describes it. */
export interface ReportPeriod {
  layout: ReportLayout;
  /** The report's name (legacy) or export name (2.0). */
  report: string;
  /** 'YYYY-MM', the month the period bills. */
  period: string;
  manifestKey: string;
  /**
   * What changes when AWS re-delivers the period (legacy: assemblyId; 2.0: the manifest's execution id, or the
   * manifest's ETag/last-modified in overwrite mode). An unchanged version is skipped; a new one replaces the
   * period atomically.
   */
  version: string;
  files: ReportFile[];
}

/**
 * Line-item types kept apart (they are summed separately, never netted into one figure): Usage, DiscountedUsage,
 * Fee, RIFee, Credit, Refund, Tax, SavingsPlanCoveredUsage, SavingsPlanNegation, SavingsPlanRecurringFee,
 * SavingsPlanUpfrontFee, BundledDiscount, … — any other value AWS adds is kept as written.
 */
type LineItemType = string;

/** One line of a report, normalised from either layout's columns (mapped by header name, never by position). */
export interface LineItem {
  /** lineItem/UsageAccountId | line_item_usage_account_id */
  usageAccountId: string;
  /** 'YYYY-MM-DD' (UTC) of lineItem/UsageStartDate | line_item_usage_start_date. */
  day: string;
  lineItemType: LineItemType;
  /** lineItem/ProductCode | line_item_product_code, e.g. AmazonS3. */
  productCode: string;
  usageType: string;
  operation: string;
  /** product/region | product_region_code (or product['region']); '' when blank. */
  region: string;
  /** lineItem/ResourceId | line_item_resource_id; '' when blank (the 'unattributed' group). */
  resourceId: string;
  usageAmount: number;
  /** lineItem/UnblendedCost in nano-dollars (1e-9 USD), exact: parsed from the decimal text, never through a float. */
  costNano: bigint;
}

/** The key of one daily rollup row: everything of a LineItem but its amounts. */
export type RollupKey = Omit<LineItem, 'usageAmount' | 'costNano'>;

/** One daily rollup row of a period: the sums of its line items. */
export interface RollupRow extends RollupKey {
  usageAmount: number;
  costNano: bigint;
  lineItems: number;
}

/** A report that cannot be read: the run fails with the file and line, and the period's previous data stays. */
export class ReportError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(line === undefined ? `${file}: ${message}` : `${file}, line ${line}: ${message}`);
    this.name = 'ReportError';
  }
}
