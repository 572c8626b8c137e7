import type { BillingRepo, InvoiceRow } from './billing.repo.ts';

/**
 * `billing:mark-paid <invoice-number> [note]` (main.ts): an instance operator records that a manual invoice was
 * paid. The payment is written on the subscription's history in the same transaction. Undefined when no open
 * invoice has that number (already paid, void or unknown).
 */
export async function markInvoicePaid(
  repo: BillingRepo,
  number: number,
  note: string | null,
): Promise<InvoiceRow | undefined> {
  return repo.transaction(async (tx) => {
    const invoice = await tx.markInvoicePaid(number, note);
    if (invoice?.subscriptionId) {
      await tx.insertEvent({
        subscriptionId: invoice.subscriptionId,
        organizationId: invoice.organizationId,
        type: 'payment_succeeded',
        data: { invoice: invoice.number, amount: invoice.amountCents / 100, note },
        source: 'operator',
      });
    }
    return invoice;
  });
}
