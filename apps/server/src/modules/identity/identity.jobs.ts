import type { PgBoss } from 'pg-boss';
import { QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { IdentityRepo } from './identity.repo.ts';

/** Hourly housekeeping of sessions, e-mailed links and invitations that can no longer be used. */
export async function registerIdentityJobs(boss: PgBoss, repo: IdentityRepo, log: Logger, schedule: boolean) {
  await boss.work(QUEUES.purgeExpiredIdentity, async () => {
    const removed = await repo.purgeExpired();
    log.info(removed, 'purged expired sessions, links and invitations');
    return removed;
  });
  if (schedule) await boss.schedule(QUEUES.purgeExpiredIdentity, '17 * * * *');
}
