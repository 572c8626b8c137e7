/** How many of the costliest usages a donut draws on their own (spec 002 §2: total and the top 4). */
const TOP_USAGES = 4;
const OTHER_SLICE = 'Other';

export interface CostItem {
  name: string;
  cost: number;
}

/**
 * The slices of a donut: the TOP_USAGES costliest items, then the rest gathered as "Other". A donut cannot draw a
 * credit or a refund, so items costing nothing or less are left out of the slices (the card's total keeps them).
 */
export function donutSlices(items: readonly CostItem[], top = TOP_USAGES): CostItem[] {
  const drawn = items.filter((item) => item.cost > 0).sort((a, b) => b.cost - a.cost);
  const head = drawn.slice(0, top);
  const rest = drawn.slice(top).reduce((sum, item) => sum + item.cost, 0);
  return rest > 0 ? [...head, { name: OTHER_SLICE, cost: rest }] : head;
}

/**
 * What the slices leave out: the credits and refunds (items costing less than nothing), summed, so the legend can
 * list them and add up to the card's total. 0 when there are none.
 */
export function creditsOf(items: readonly CostItem[]): number {
  return items.reduce((sum, item) => (item.cost < 0 ? sum + item.cost : sum), 0);
}

/** Sums items of the same name (a usage type in several buckets, an operation in several usage types). */
export function sumByName(items: readonly CostItem[]): CostItem[] {
  const sums = new Map<string, number>();
  for (const item of items) sums.set(item.name, (sums.get(item.name) ?? 0) + item.cost);
  return [...sums].map(([name, cost]) => ({ name, cost }));
}
