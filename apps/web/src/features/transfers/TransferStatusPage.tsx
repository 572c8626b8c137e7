import { Suspense, lazy, useEffect, useRef } from 'react';
import { Card, Space, Spin, Typography } from 'antd';
import { useLocation, useSearchParams } from 'react-router';
import { TRANSFER_TYPE, type MigrationProgress, type TransferProviderFilter } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { BatchHistoryTable } from './BatchHistoryTable.tsx';
import { useOngoingIn, useOngoingTransfers } from './live-transfers.ts';
import { OngoingTransfers } from './OngoingTransfers.tsx';
import { StatTiles } from './StatTiles.tsx';
import { TransferHistoryLists } from './TransferHistoryLists.tsx';
import { useTransferList } from './transfers-api.ts';
import { useTransferStats } from './useTransferStats.ts';

// recharts is only fetched when this page draws its chart.
const SpeedChart = lazy(() => import('./SpeedChart.tsx').then((m) => ({ default: m.SpeedChart })));

/**
 * Re-reads the first history page once for each live batch it does not list yet (one started since it was read),
 * so the batch's source is named within a round trip instead of at the next history refresh.
 */
function useListingOf(migrations: readonly MigrationProgress[], newest: ReturnType<typeof useTransferList>) {
  const asked = useRef(new Set<string>());
  const { data, isFetching, refetch } = newest;
  const listedIds = data?.items.map((batch) => batch.id).join(' ');
  const liveIds = migrations.map((migration) => migration.id).join(' ');
  useEffect(() => {
    if (listedIds === undefined || isFetching) return;
    const listed = new Set(listedIds.split(' '));
    const unlisted = liveIds
      .split(' ')
      .filter((id) => id !== '' && !listed.has(id) && !asked.current.has(id));
    if (unlisted.length === 0) return;
    for (const id of unlisted) asked.current.add(id);
    void refetch();
  }, [listedIds, liveIds, isFetching, refetch]);
}

/** /rboard, and /mboard with ?sync, are the replication variant (spec 001 §2 routes). */
function useReplicationVariant(): boolean {
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const sync = params.get('sync');
  return pathname.toLowerCase().startsWith('/rboard') || (sync !== null && sync !== 'false');
}

/** A Transfer Status page over some of the migrations: /wbrstatus (into Wasabi) and /awstboard (out of AWS). */
export interface TransferStatusScope {
  title: string;
  /** The server keeps only these batches in every list and count of the page (the history is paged). */
  filter: TransferProviderFilter;
}

/**
 * /mboard, Transfer Status (spec 001 §2); with ?sync or at /rboard, Replication Status over transfer type 2 only: live tiles and speed chart from the §4 stats loop, the ongoing transfers,
 * the Today / Yesterday / This Week lists and the batch history with retry and download of failed files. With a
 * `scope` (issue 28 §3), the same page over the migrations its filter keeps.
 */
export function TransferStatusPage({ scope }: { scope?: TransferStatusScope }) {
  const replication = useReplicationVariant() && scope === undefined;
  const title = scope?.title ?? (replication ? 'Replication Status' : 'Migration Status');
  const type = replication ? TRANSFER_TYPE.replication : TRANSFER_TYPE.migration;
  const filter = scope?.filter;
  useDocumentTitle(title);

  const ongoing = useOngoingTransfers();
  // The live feed carries every batch of the organisation: each variant shows and counts only its own type.
  const ofType = (ongoing.data ?? []).filter((migration) => migration.transferType === type);
  const scoped = useOngoingIn(filter, ofType);
  const { migrations } = scoped;
  const { stats, series } = useTransferStats(migrations);
  // Live batches are the newest ones: the first history page names their sources.
  const newest = useTransferList(type, 1, undefined, filter);
  useListingOf(migrations, newest);

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
      {ongoing.isPending || scoped.isPending ? (
        <Spin aria-label="Loading" />
      ) : (
        <OngoingTransfers migrations={migrations} batches={newest.data?.items ?? []} />
      )}
      {/* GET /c2c/history lists migrations only (type 1): the replication variant has its batch history. */}
      {!replication && <TransferHistoryLists filter={filter} />}
      <BatchHistoryTable type={type} filter={filter} />
    </Space>
  );
}
