import { describe, expect, it } from 'vitest';
import {
  egressPerGbFor,
  roundTransferCost,
  transferCostEstimate,
  transferCostsEstimate,
} from './transfers.ts';

describe('transfer cost estimates (spec 000 §9 egress, spec 001 §9 $0.15/GB)', () => {
  it('adds the source egress to the transfer charge per GB', () => {
    expect(transferCostEstimate('aws', 10)).toEqual({
      sizeGb: 10,
      egressPerGb: 0.15,
      transferPerGb: 0.15,
      egressCost: 1.5,
      transferCost: 1.5,
      total: 3,
      rate: 0.3,
    });
    expect(transferCostEstimate('azure', 3)).toMatchObject({
      egressCost: 0.261,
      transferCost: 0.45,
      total: 0.711,
      rate: 0.237,
    });
    expect(transferCostEstimate('google', 7)).toMatchObject({
      egressCost: 0.84,
      transferCost: 1.05,
      total: 1.89,
    });
    expect(transferCostEstimate('wasabi', 1)).toMatchObject({ egressCost: 0, total: 0.15, rate: 0.15 });
  });

  it('prices the S3-compatible stores the table does not name like aws', () => {
    expect(egressPerGbFor('backblaze')).toBe(0.15);
    expect(egressPerGbFor('filebase')).toBe(0.15);
    expect(egressPerGbFor('genericS3')).toBe(0.15);
  });

  it('rounds to 5 decimals by decimal halves', () => {
    expect(roundTransferCost(0.000015)).toBe(0.00002);
    expect(roundTransferCost(1.234565)).toBe(1.23457);
    expect(roundTransferCost(1.3969838619232178e-7)).toBe(0);
    // 100 MiB from aws: 0.09765625 GB × 0.15 = 0.0146484375 each way.
    expect(transferCostEstimate('aws', 0.09765625)).toMatchObject({
      egressCost: 0.01465,
      transferCost: 0.01465,
      total: 0.0293,
    });
  });

  it('answers /transfers/costs by bytes and direction, null for unknown codes', () => {
    expect(transferCostsEstimate('Azure', 1_610_612_736, 'c2c')).toMatchObject({
      sizeGb: 1.5,
      egressCost: 0.1305,
      transferCost: 0.225,
      total: 0.3555,
    });
    expect(transferCostsEstimate('google', 536_870_912, 'download')).toMatchObject({
      transferPerGb: 0,
      egressCost: 0.06,
      total: 0.06,
    });
    expect(transferCostsEstimate('aws', 1_073_741_824, 'upload')).toMatchObject({ total: 0, rate: 0 });
    expect(transferCostsEstimate('dropbox', 1, 'c2c')).toBeNull();
    expect(transferCostsEstimate('aws', 1, 'sideways')).toBeNull();
  });
});
