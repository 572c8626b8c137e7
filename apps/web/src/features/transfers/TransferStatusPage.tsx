import { Suspense, lazy } from 'react';
import { Card, Space, Spin, Typography } from 'antd';
import { useLocation, useSearchParams } from 'react-router';
import { TRANSFER_TYPE } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { BatchHistoryTable } from './BatchHistoryTable.tsx';
import { useOngoingTransfers } from './live-transfers.ts';
import { OngoingTransfers } from './OngoingTransfers.tsx';
import { StatTiles } from './StatTiles.tsx';
import { TransferHistoryLists } from './TransferHistoryLists.tsx';
import { useTransferList } from './transfers-api.ts';
import { useTransferStats } from './useTransferStats.ts';

// recharts is only fetched when this page draws its chart.
const SpeedChart = lazy(() => import('./SpeedChart.tsx').then((m) => ({ default: m.SpeedChart })));

/** /rboard, and /mboard with ?sync, are the replication variant (spec 001 §2 routes). */
function useReplicationVariant(): boolean {
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const sync = params.get('sync');
  return pathname.toLowerCase().startsWith('/rboard') || (sync !== null && sync !== 'false');
}

/**
 * /mboard, Transfer Status (spec 001 §2); with ?sync or at /rboard, Replication Status over transfer type 2 only: live tiles and speed chart from the §4 stats loop, the ongoing transfers,
 * the Today / Yesterday / This Week lists and the batch history with retry and download of failed files.
 */
export function TransferStatusPage() {
  const replication = useReplicationVariant();
  const title = replication ? 'Replication Status' : 'Migration Status';
  const type = replication ? TRANSFER_TYPE.replication : TRANSFER_TYPE.migration;
  useDocumentTitle(title);

  const ongoing = useOngoingTransfers();
  // The live feed carries every batch of the organisation: each variant shows and counts only its own type.
  const migrations = (ongoing.data ?? []).filter((migration) => migration.transferType === type);
  const { stats, series } = useTransferStats(migrations);
  // Live batches are the newest ones: the first history page names their sources.
  const newest = useTransferList(type, 1);

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {title}
      </Typography.Title>
      <StatTiles stats={stats} />
      <Card title="Transfer speed">
        <figure aria-label="Transfer speed" style={{ margin: 0 }}>
          <Suspense fallback={<Spin aria-label="Loading" />}>
            <SpeedChart series={series} />
          </Suspense>
        </figure>
      </Card>
      {ongoing.isPending ? (
        <Spin aria-label="Loading" />
      ) : (
        <OngoingTransfers migrations={migrations} batches={newest.data?.items ?? []} />
      )}
      {/* GET /c2c/history lists migrations only (type 1): the replication variant has its batch history. */}
      {!replication && <TransferHistoryLists />}
      <BatchHistoryTable type={type} />
    </Space>
  );
}
