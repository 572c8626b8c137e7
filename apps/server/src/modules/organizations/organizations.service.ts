import type { OrganizationFlags } from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { notFound } from '../../errors.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { ChargeConfirmations, OrganizationRow, OrganizationsRepo } from './organizations.repo.ts';

interface ConfirmationsBody {
  confirmed_c2c?: true;
  confirmed_ftx?: true;
  confirmed_wasabi?: true;
}

/** The organisation's charge confirmations (spec 001 §2 charge modals, §6: only the Owner confirms). */
export class OrganizationsService {
  constructor(private readonly repo: OrganizationsRepo) {}

  /**
   * Sets the confirmations the body names; a confirmation is never withdrawn here, so the flags only go to true.
   * The profile (GET /users/_me) reads the same row, so the web's profile refresh shows them at once.
   */
  async confirm(principal: Principal, body: ConfirmationsBody): Promise<OrganizationFlags> {
    authorize(principal, 'organization.confirmCharges');
    const flags: ChargeConfirmations = {};
    if (body.confirmed_c2c) flags.confirmedC2c = true;
    if (body.confirmed_ftx) flags.confirmedFtx = true;
    if (body.confirmed_wasabi) flags.confirmedWasabi = true;
    const row = await this.repo.transaction(async (tx) => {
      const before = await tx.lock(principal.organizationId);
      const after = before && (await tx.confirm(principal.organizationId, flags));
      if (!before || !after) return undefined;
      const changes = changesOf(confirmationsOf(before), confirmationsOf(after));
      // Confirming again what was confirmed changes nothing, so it leaves no entry.
      if (changes.length) {
        await recordAudit(tx.orm, principal, {
          entity: 'Organization',
          type: 'Modified',
          resource: after.name,
          resourceId: after.id,
          changes,
        });
      }
      return after;
    });
    if (!row) throw notFound();
    return organizationFlagsView(row);
  }
}

const confirmationsOf = (row: OrganizationRow) => ({
  confirmed_c2c: row.confirmedC2c,
  confirmed_ftx: row.confirmedFtx,
  confirmed_wasabi: row.confirmedWasabi,
});

function organizationFlagsView(row: OrganizationRow): OrganizationFlags {
  return {
    is_cbs: row.isCbs,
    confirmed_c2c: row.confirmedC2c,
    confirmed_ftx: row.confirmedFtx,
    confirmed_wasabi: row.confirmedWasabi,
  };
}
