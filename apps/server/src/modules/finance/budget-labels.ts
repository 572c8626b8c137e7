import { ALLOCATION_PRODUCTS, BUDGET_TOTAL_LABEL, productLabelOf } from '@cumulo/contract';

/** The product codes the analytics screens name, offered for a budget before any report mentions them. */
export const KNOWN_CODES: readonly string[] = Object.values(ALLOCATION_PRODUCTS).flat();

/**
 * The label a budget or a budget alert is stored under, for what a member typed: 'Total'; a report product by
 * its code or its label ('AmazonS3', 'S3'); else a custom product by its name. Budgets and alerts both resolve
 * through here, so an alert always watches the budget it was set for. Undefined when nothing matches.
 */
export function resolveBudgetLabel(
  typed: string,
  codes: Iterable<string>,
  customNames: readonly string[],
): string | undefined {
  const wanted = typed.toLowerCase();
  if (wanted === BUDGET_TOTAL_LABEL.toLowerCase()) return BUDGET_TOTAL_LABEL;
  const all = [...new Set([...codes, ...KNOWN_CODES])];
  return (
    all.find((code) => code.toLowerCase() === wanted) ??
    all.find((code) => productLabelOf(code).toLowerCase() === wanted) ??
    customNames.find((name) => name.toLowerCase() === wanted)
  );
}
