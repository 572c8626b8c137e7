/**
 * Folds a period's line items into daily rollup rows (issue 24): one row per RollupKey, its costs summed exactly
 * as bigint nano-dollars, its usage as a number, its lines counted. Memory grows with the distinct keys (days ×
 * accounts × products × usage types × operations × regions × resources × line-item types), never with the lines.
 */
import type { LineItem, RollupKey, RollupRow } from './report-types.ts';

/** The separator of a key's parts: a control character no report column holds. */
const SEPARATOR = '\u0001';

const keyOf = (item: RollupKey): string =>
  [
    item.day,
    item.usageAccountId,
    item.lineItemType,
    item.productCode,
    item.usageType,
    item.operation,
    item.region,
    item.resourceId,
  ].join(SEPARATOR);

export class RollupAggregator {
  readonly #rows = new Map<string, RollupRow>();

  add(item: LineItem): void {
    const key = keyOf(item);
    const row = this.#rows.get(key);
    if (row) {
      row.costNano += item.costNano;
      row.usageAmount += item.usageAmount;
      row.lineItems += 1;
      return;
    }
    // The row's texts are taken from the key, not the item: an item's fields are slices of a whole decompressed
    // chunk, and keeping one of them would keep that chunk alive for as long as the row.
    const [
      day = '',
      usageAccountId = '',
      lineItemType = '',
      productCode = '',
      usageType = '',
      operation = '',
      region = '',
      resourceId = '',
    ] = key.split(SEPARATOR);
    this.#rows.set(key, {
      usageAccountId,
      day,
      lineItemType,
      productCode,
      usageType,
      operation,
      region,
      resourceId,
      usageAmount: item.usageAmount,
      costNano: item.costNano,
      lineItems: 1,
    });
  }

  /** Adds another aggregator's row of the same key (the reading threads' rows, merged: read-pool.ts). */
  addRow(other: RollupRow): void {
    const key = keyOf(other);
    const row = this.#rows.get(key);
    if (row) {
      row.costNano += other.costNano;
      row.usageAmount += other.usageAmount;
      row.lineItems += other.lineItems;
    } else {
      this.#rows.set(key, { ...other });
    }
  }

  /** How many distinct keys (rows) it holds. */
  get size(): number {
    return this.#rows.size;
  }

  rows(): IterableIterator<RollupRow> {
    return this.#rows.values();
  }
}

/** The rollup rows of a stream of line-item batches (several files of one period may be fed to one aggregator). */
export async function aggregateLineItems(
  batches: AsyncIterable<readonly LineItem[]>,
  into: RollupAggregator = new RollupAggregator(),
): Promise<RollupAggregator> {
  for await (const batch of batches) for (const item of batch) into.add(item);
  return into;
}
