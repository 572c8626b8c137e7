import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { e2eTmp as tmp } from './tmp-dir.ts';

/**
 * A client of the e2e server's embedded PostgreSQL (global-setup.ts starts it in a fresh `data-*` folder of the
 * run's scratch folder): its port is in the cluster's postmaster.pid, its password beside the cluster. For
 * arranging what no screen or call of this build makes yet; what a test asserts it reads through the product.
 */
export async function withDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const cluster = fs
    .readdirSync(tmp)
    .filter((name) => name.startsWith('data-'))
    .map((name) => path.join(tmp, name, 'postgres'))
    .find((dir) => fs.existsSync(path.join(dir, 'postmaster.pid')));
  if (!cluster) throw new Error('global-setup.ts started no embedded PostgreSQL');
  // postmaster.pid: pid, data directory, start time, port, …
  const port = Number(fs.readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[3]);
  const password = fs.readFileSync(`${cluster}.password`, 'utf8').trim();
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'cumulo', password, database: 'cumulo' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
