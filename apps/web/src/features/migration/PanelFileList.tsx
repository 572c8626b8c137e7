import { useMemo, useState, type DragEvent, type ReactNode } from 'react';
import { Alert, Button, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { FileOutlined, FolderOutlined, ReloadOutlined } from '@ant-design/icons';
import { DISPLAY_NAME_MAX, FS_FILE_TYPE, displayName } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { useFolderContent, useResetBucket } from '../browser/browser-api.ts';
import { FolderTrail } from '../browser/FolderTrail.tsx';
import {
  reorderKeys,
  visibleRows,
  type PanelFile,
  type PanelOverlay,
  type Side,
} from './transfer-screen-state.ts';

/** The drag payload's type: only drags started in a panel are accepted. */
export const PANEL_DRAG_TYPE = 'application/x-cumulo-panel-files';

interface DragPayload {
  side: Side;
  files: PanelFile[];
}

function readPayload(event: DragEvent): DragPayload | null {
  try {
    const payload = JSON.parse(event.dataTransfer.getData(PANEL_DRAG_TYPE)) as DragPayload;
    return (payload.side === 'source' || payload.side === 'destination') && Array.isArray(payload.files)
      ? payload
      : null;
  } catch {
    return null;
  }
}

const LIST_HEIGHT = 420;

/** What a panel lists, from whichever source: a bucket's folder, or the ftX agent's local folder. */
interface PanelListing {
  rows: PanelFile[];
  loading: boolean;
  /** The listing failed: the list is emptied and this is shown (spec 001 §4). */
  error: string | null;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
}

interface PanelSelectionProps {
  side: Side;
  /** Names the panel for assistive technology ("Source files"). */
  label: string;
  selected: readonly PanelFile[];
  order: readonly string[];
  overlay: PanelOverlay;
  onSelect(files: PanelFile[]): void;
  onOpenFolder(path: string): void;
  onReorder(order: string[]): void;
  /** Files dragged from the other panel were dropped here. */
  onDropFromOther(from: Side, files: PanelFile[]): void;
}

export interface PanelFileListProps extends PanelSelectionProps {
  accountId: string;
  bucket: string;
  path: string;
}

/** One side of the two-panel transfer screen showing a bucket's folder (the bucket browser's paged listing). */
export function PanelFileList({ accountId, bucket, path, ...panel }: PanelFileListProps) {
  const listing = useFolderContent(accountId, bucket, path, true);
  const resetBucket = useResetBucket();
  const rows = useMemo<PanelFile[]>(
    () =>
      listing.data?.pages.flatMap((page) =>
        page.rows.map((row) => ({ key: row.key, name: row.name, size: row.size, type: row.type })),
      ) ?? [],
    [listing.data],
  );
  return (
    <PanelFileView
      {...panel}
      listing={{
        rows,
        loading: listing.isPending && listing.fetchStatus !== 'idle',
        error: listing.isError ? describeError(listing.error) : null,
        hasMore: listing.hasNextPage,
        loadingMore: listing.isFetchingNextPage,
        loadMore: () => void listing.fetchNextPage(),
      }}
      trail={
        <FolderTrail
          bucket={bucket}
          path={path}
          onOpenFolder={panel.onOpenFolder}
          backLabel={`Back (${panel.label})`}
        />
      }
      onRefresh={() => void resetBucket(accountId, bucket)}
      emptyText="This folder is empty"
    />
  );
}

export interface PanelFileViewProps extends PanelSelectionProps {
  listing: PanelListing;
  /** Back and where the panel is (breadcrumbs). */
  trail: ReactNode;
  onRefresh(): void;
  emptyText: ReactNode;
}

/**
 * The rows of one side of the two-panel transfer screen with checkboxes, folder navigation and HTML5 drag and
 * drop. Dropping rows of the other panel starts a transfer; dropping rows of this panel only reorders them.
 */
export function PanelFileView({
  side,
  label,
  selected,
  order,
  overlay,
  onSelect,
  onOpenFolder,
  onReorder,
  onDropFromOther,
  listing,
  trail,
  onRefresh,
  emptyText,
}: PanelFileViewProps) {
  const [dropping, setDropping] = useState(false);
  const listed = listing.rows;
  const rows = useMemo(() => visibleRows(listed, order, overlay), [listed, order, overlay]);
  const pendingKeys = useMemo(() => {
    const listedKeys = new Set(listed.map((row) => row.key));
    return new Set(overlay.added.filter((file) => !listedKeys.has(file.key)).map((file) => file.key));
  }, [listed, overlay.added]);
  const selectedKeys = selected.map((file) => file.key);

  const onDragStart = (event: DragEvent, row: PanelFile) => {
    const chosen = selectedKeys.includes(row.key) ? [...selected] : [row];
    const payload: DragPayload = { side, files: chosen };
    event.dataTransfer.setData(PANEL_DRAG_TYPE, JSON.stringify(payload));
    event.dataTransfer.effectAllowed = 'copyMove';
  };

  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (!Array.from(event.dataTransfer.types).includes(PANEL_DRAG_TYPE)) return;
    event.preventDefault();
    setDropping(true);
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    setDropping(false);
    const payload = readPayload(event);
    if (!payload) return;
    event.preventDefault();
    if (payload.side !== side) {
      onDropFromOther(payload.side, payload.files);
      return;
    }
    const target = event.target instanceof Element ? event.target.closest('tr[data-row-key]') : null;
    onReorder(
      reorderKeys(
        rows.map((row) => row.key),
        payload.files.map((file) => file.key),
        target?.getAttribute('data-row-key') ?? null,
      ),
    );
  };

  const columns: TableColumnsType<PanelFile> = [
    {
      title: 'Name',
      key: 'name',
      render: (_, row) => {
        const shown = displayName(row.name, DISPLAY_NAME_MAX);
        const title = shown === row.name ? undefined : row.name;
        const name =
          row.type === FS_FILE_TYPE.folder && !pendingKeys.has(row.key) ? (
            <Button
              type="link"
              size="small"
              icon={<FolderOutlined />}
              title={title}
              style={{ padding: 0 }}
              onClick={() => onOpenFolder(row.key)}
            >
              {shown}
            </Button>
          ) : (
            <span title={title}>
              {row.type === FS_FILE_TYPE.folder ? <FolderOutlined /> : <FileOutlined />} {shown}
            </span>
          );
        return pendingKeys.has(row.key) ? (
          <Space size="small">
            {name}
            <Tag color="processing">Transferring</Tag>
          </Space>
        ) : (
          name
        );
      },
    },
    {
      title: 'Size',
      key: 'size',
      width: 110,
      render: (_, row) => (row.type === FS_FILE_TYPE.file ? <ByteSize bytes={row.size} /> : null),
    },
  ];

  return (
    <div
      role="region"
      aria-label={label}
      onDragOver={onDragOver}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
      style={{
        outline: dropping ? '2px dashed #1668dc' : 'none',
        outlineOffset: 4,
        borderRadius: 8,
      }}
    >
      <Space orientation="vertical" size="small" style={{ width: '100%' }}>
        <Space wrap style={{ justifyContent: 'space-between', width: '100%' }}>
          <Space wrap>{trail}</Space>
          <Button aria-label={`Refresh (${label})`} icon={<ReloadOutlined />} onClick={onRefresh} />
        </Space>
        {listing.error !== null ? <Alert type="error" showIcon title={listing.error} /> : null}
        <Table<PanelFile>
          size="small"
          rowKey="key"
          columns={columns}
          // A listing failure empties the list (spec 001 §4).
          dataSource={listing.error !== null ? [] : rows}
          pagination={false}
          loading={listing.loading}
          scroll={{ y: LIST_HEIGHT }}
          onRow={(row) =>
            pendingKeys.has(row.key)
              ? {}
              : {
                  draggable: true,
                  onDragStart: (event: DragEvent<HTMLElement>) => onDragStart(event, row),
                }
          }
          rowSelection={{
            selectedRowKeys: selectedKeys,
            onChange: (_keys, chosen) => onSelect(chosen.filter((row) => !pendingKeys.has(row.key))),
            getCheckboxProps: (row) => ({
              'aria-label': `Select ${row.name}`,
              disabled: pendingKeys.has(row.key),
            }),
          }}
          locale={{ emptyText }}
        />
        <Space>
          {listing.hasMore ? (
            <Button loading={listing.loadingMore} onClick={listing.loadMore}>
              Load more
            </Button>
          ) : null}
          <Typography.Text type="secondary">
            {selected.length > 0 ? `${selected.length} selected · ` : ''}
            {rows.length} item{rows.length === 1 ? '' : 's'}
          </Typography.Text>
        </Space>
      </Space>
    </div>
  );
}
