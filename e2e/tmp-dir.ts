import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The scratch folder of one run of the end-to-end tests (data directory, mail, failure reports), one per E2E_PORT:
 * the global set-up empties it, so a second run on another port must not share it with a run still going.
 */
export const e2eTmp = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '.tmp',
  `port-${process.env.E2E_PORT ?? '8181'}`,
);
