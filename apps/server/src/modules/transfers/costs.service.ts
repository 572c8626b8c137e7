import {
  EGRESS_PER_GB,
  STORAGE_PRICE_TIERS,
  TRANSFER_CHARGE_PER_GB,
  c2cMessages,
  transferCostEstimate,
  transferCostsEstimate,
  type CostEstimate,
  type S3CostsAnswer,
} from '@cumulo/contract';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';

/** What a transfer costs, from the spec's constants (the pure arithmetic is the contract's, shared with /calc). */
export class CostsService {
  constructor(private readonly accounts: CloudAccountsRepo) {}

  /**
   * POST /transfer/calculate_cost: `sizeGb` out of the source account's provider (egress) plus the cloud to cloud
   * transfer charge. The destination is checked to belong to the caller, though ingress costs nothing anywhere.
   */
  async calculate(
    principal: Principal,
    body: { sourceCloudAccountId: string; destinationCloudAccountId: string; size: number },
  ): Promise<CostEstimate> {
    const [source, destination] = await Promise.all([
      this.accounts.find(principal.organizationId, body.sourceCloudAccountId),
      this.accounts.find(principal.organizationId, body.destinationCloudAccountId),
    ]);
    if (!source || !destination) throw notFound();
    return transferCostEstimate(source.provider, body.size);
  }

  /** GET /transfers/s3_costs: the S3 prices behind every estimate above (storage tiers, egress, transfer charge). */
  s3Costs(): S3CostsAnswer {
    return {
      currency: 'USD',
      storage_per_gb_month: STORAGE_PRICE_TIERS.aws.map((tier) => ({
        upto_gb: Number.isFinite(tier.uptoGb) ? tier.uptoGb : null,
        per_gb: tier.perGb,
      })),
      egress_per_gb: EGRESS_PER_GB.aws,
      // Every provider of the price table takes data in for free (see `transferCostsEstimate`).
      ingress_per_gb: 0,
      transfer_charge_per_gb: TRANSFER_CHARGE_PER_GB,
    };
  }

  /** POST /transfers/costs: `size` bytes through the provider `service_code` in `direction`. */
  costs(body: { service_code: string; size: number; direction: string }): CostEstimate {
    const estimate = transferCostsEstimate(body.service_code, body.size, body.direction);
    if (estimate) return estimate;
    const knownService = transferCostsEstimate(body.service_code, 0, 'c2c') !== null;
    if (!knownService)
      throw badRequest(c2cMessages.unknownService, { service_code: [c2cMessages.unknownService] });
    throw badRequest(c2cMessages.unknownDirection, { direction: [c2cMessages.unknownDirection] });
  }
}
