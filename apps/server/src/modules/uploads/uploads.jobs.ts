import type { PgBoss } from 'pg-boss';
import { QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { UploadsService } from './uploads.service.ts';

/** Every hour, abort direct uploads abandoned for a day, so no partial upload stays with the provider. */
export async function registerUploadJobs(
  boss: PgBoss,
  service: UploadsService,
  log: Logger,
  schedule: boolean,
) {
  await boss.work(QUEUES.uploadsSweep, async () => {
    const result = await service.sweepAbandoned();
    if (result.aborted || result.failed) log.info(result, 'abandoned uploads swept');
    return result;
  });
  if (schedule) await boss.schedule(QUEUES.uploadsSweep, '23 * * * *');
}
