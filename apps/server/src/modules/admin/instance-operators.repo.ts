import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { instanceOperators, users } from '../../db/schema/index.ts';

/**
 * The one advisory lock of "who is the first account" (any constant of our own; pg_advisory_xact_lock keys are
 * shared by the whole database, so it is spelled out here once).
 */
const FIRST_ACCOUNT_LOCK = 0x0c0_28_01;

/**
 * SQL of the instance operators (modules/admin/README.md): the first account, recorded in its sign-up transaction,
 * and the addresses of `OPERATOR_EMAILS`. Nothing here is reachable from a route that writes.
 */
export class InstanceOperatorsRepo {
  constructor(
    private readonly orm: Database,
    /** `OPERATOR_EMAILS`, lower-cased by config.ts. */
    private readonly operatorEmails: readonly string[],
  ) {}

  /**
   * Records `userId` as operator when no other user exists: called inside the transaction that created the user.
   * Two first sign-ups at once take the lock in turn; the second reads the first's committed user and stays a
   * tenant, so a fresh install gets exactly one first operator.
   */
  async claimFirstAccount(userId: string): Promise<void> {
    await this.orm.execute(sql`select pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK})`);
    await this.orm.execute(sql`insert into ${instanceOperators} (user_id, source)
      select ${userId}, 'first-account'
      where not exists (select 1 from ${users} where ${users.id} <> ${userId})
      on conflict do nothing`);
  }

  async isOperator(userId: string): Promise<boolean> {
    const result = await this.orm.execute<{ operator: boolean }>(sql`select
      exists (select 1 from ${instanceOperators} where ${instanceOperators.userId} = ${userId})
      or exists (select 1 from ${users} where ${users.id} = ${userId}
        and ${operatorEmailMatch(sql`${users.email}`, this.operatorEmails)})
      as operator`);
    return result.rows[0]?.operator === true;
  }
}

/** A user's e-mail is one of `OPERATOR_EMAILS` (both stored lower-cased). */
export function operatorEmailMatch(email: SQL, emails: readonly string[]): SQL {
  return emails.length === 0 ? sql`false` : sql`${email} in ${emails}`;
}
