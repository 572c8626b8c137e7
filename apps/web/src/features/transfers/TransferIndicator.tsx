import { Progress, Tooltip } from 'antd';
import { Link, useLocation } from 'react-router';
import type { MigrationProgress } from '@cumulo/contract';
import { useOngoingTransfers } from './live-transfers.ts';

/** Spec 001 §4: the indicator counts a live migration while it is neither Succeeded nor Canceled nor at 100%. */
export function showsInIndicator(migration: MigrationProgress): boolean {
  return migration.status !== 'Succeeded' && migration.status !== 'Canceled' && migration.percent !== 100;
}

/** The overall percent of the counted migrations, weighted by size. */
function indicatorPercent(migrations: readonly MigrationProgress[]): number {
  const size = migrations.reduce((sum, migration) => sum + migration.size, 0);
  if (size === 0) {
    const average =
      migrations.reduce((sum, migration) => sum + migration.percent, 0) / (migrations.length || 1);
    return Math.round(average);
  }
  const done = migrations.reduce((sum, migration) => sum + migration.transferred + migration.skipped_size, 0);
  return Math.min(100, Math.round((done * 100) / size));
}

const STATUS_PAGES = ['/mboard', '/rboard'];
/** px: the ring sits in the 64 px header beside the bell with room above and below ("small" is 60 px). */
const INDICATOR_SIZE = 36;

/** The transfer indicator of every other signed-in page: a progress ring that opens /mboard (spec 001 §2, §4). */
export function TransferIndicator() {
  const { pathname } = useLocation();
  const ongoing = useOngoingTransfers();
  const counted = (ongoing.data ?? []).filter(showsInIndicator);
  if (counted.length === 0 || STATUS_PAGES.includes(pathname.toLowerCase())) return null;
  const percent = indicatorPercent(counted);
  const failed = counted.some((migration) => migration.status === 'Failed');
  const status = failed ? 'exception' : percent === 100 ? 'success' : 'active';
  const label = `Transfers in progress: ${percent}%`;
  return (
    <Tooltip title="Transfer Status">
      <Link to="/mboard" aria-label={label} style={{ display: 'inline-flex' }}>
        <Progress
          type="circle"
          size={INDICATOR_SIZE}
          percent={percent}
          status={status}
          aria-label="Transfer progress"
        />
      </Link>
    </Tooltip>
  );
}
