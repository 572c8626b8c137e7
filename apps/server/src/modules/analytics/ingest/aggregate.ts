/**
 * Folds a period's line items into daily rollup rows (issue 24): one row per RollupKey, its costs summed exactly
 * as bigint nano-dollars, its usage as a number, its lines counted. Memory grows with the distinct keys (days ×
 * accounts × products × usage types × operations × regions × resources × line-item types), never with the lines.
 */
import type { LineItem, RollupKey, RollupRow } from './report-types.ts';

/** The key's texts, in the order of their ids in a row's key. */
const PARTS = [
  'day',
  'usageAccountId',
  'lineItemType',
  'productCode',
  'usageType',
  'operation',
  'region',
  'resourceId',
] as const satisfies readonly (keyof RollupKey)[];

/**
 * A copy of a text of its own: an item's fields are slices of a whole decompressed chunk, and a kept slice would
 * keep that chunk alive for as long as the aggregator.
 */
const ownCopy = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

export class RollupAggregator {
  /** Each key part's texts, numbered as first seen (the texts themselves are kept once, copied). */
  readonly #ids = PARTS.map(() => new Map<string, number>());
  readonly #texts: string[][] = PARTS.map(() => []);
  /** Rows by their parts' numbers, two UTF-16 units each: a 16-unit key instead of the ~100 of the texts. */
  readonly #rows = new Map<string, RollupRow>();

  #idOf(part: number, text: string): number {
    const ids = this.#ids[part] as Map<string, number>;
    let id = ids.get(text);
    if (id === undefined) {
      const own = ownCopy(text);
      id = ids.size;
      ids.set(own, id);
      (this.#texts[part] as string[]).push(own);
    }
    return id;
  }

  #rowOf(key: RollupKey): RollupRow {
    const day = this.#idOf(0, key.day);
    const account = this.#idOf(1, key.usageAccountId);
    const type = this.#idOf(2, key.lineItemType);
    const product = this.#idOf(3, key.productCode);
    const usageType = this.#idOf(4, key.usageType);
    const operation = this.#idOf(5, key.operation);
    const region = this.#idOf(6, key.region);
    const resource = this.#idOf(7, key.resourceId);
    // Ids below 0xffff (nearly always: a month has far fewer texts per part) take one UTF-16 unit each, larger ones
    // two; the lengths differ (8 or 16), so the two forms never meet.
    const id =
      (day | account | type | product | usageType | operation | region | resource) < 0xffff
        ? String.fromCharCode(day, account, type, product, usageType, operation, region, resource)
        : String.fromCharCode(
            day & 0xffff,
            day >>> 16,
            account & 0xffff,
            account >>> 16,
            type & 0xffff,
            type >>> 16,
            product & 0xffff,
            product >>> 16,
            usageType & 0xffff,
            usageType >>> 16,
            operation & 0xffff,
            operation >>> 16,
            region & 0xffff,
            region >>> 16,
            resource & 0xffff,
            resource >>> 16,
          );
    let row = this.#rows.get(id);
    if (row === undefined) {
      const text = (part: number, index: number) => this.#texts[part]?.[index] ?? '';
      row = {
        day: text(0, day),
        usageAccountId: text(1, account),
        lineItemType: text(2, type),
        productCode: text(3, product),
        usageType: text(4, usageType),
        operation: text(5, operation),
        region: text(6, region),
        resourceId: text(7, resource),
        usageAmount: 0,
        costNano: 0n,
        lineItems: 0,
      };
      this.#rows.set(id, row);
    }
    return row;
  }

  add(item: LineItem): void {
    const row = this.#rowOf(item);
    row.costNano += item.costNano;
    row.usageAmount += item.usageAmount;
    row.lineItems += 1;
  }

  /** Adds another aggregator's row of the same key (the reading threads' rows, merged: read-pool.ts). */
  addRow(other: RollupRow): void {
    const row = this.#rowOf(other);
    row.costNano += other.costNano;
    row.usageAmount += other.usageAmount;
    row.lineItems += other.lineItems;
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
