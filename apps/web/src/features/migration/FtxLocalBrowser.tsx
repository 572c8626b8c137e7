import { useEffect, useMemo } from 'react';
import { Alert, App, Breadcrumb, Button, Empty, Space, Spin, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { FS_FILE_TYPE, agentMessages, displayName, type AgentLocalFile } from '@cumulo/contract';
import { agentClient, agentPath } from '../agent/agent-client.ts';
import { agentKeys } from '../agent/agent-api.ts';
import type { AgentState } from '../agent/use-agent.ts';
import { parentOf } from '../browser/FolderTrail.tsx';
import { migrationTexts } from './migration-texts.ts';
import { PanelFileView, type PanelFileViewProps } from './PanelFileList.tsx';
import { FTX_ROOT, type PanelFile } from './transfer-screen-state.ts';

/** Rows asked of the agent at a time (the contract's default page); a full page means more exist (spec §4). */
export const FTX_PAGE_SIZE = 100;

/** The agent's path of a panel folder: '/' stays, '/Photos/2024/' is '/Photos/2024'. */
export function agentFolder(folder: string): string {
  return folder === FTX_ROOT ? FTX_ROOT : agentPath(folder.replace(/\/+$/, ''));
}

/** The agent's path of a panel row (a folder's key ends with '/', as in a bucket). */
export function agentPathOf(file: PanelFile): string {
  return agentFolder(file.key);
}

/** Spec 001 §3 "ftX item": a local file or folder (size -1) as a panel row; a folder's key ends with '/'. */
function panelFileOf(item: AgentLocalFile): PanelFile {
  const path = agentPath(item.path).replace(/\/+$/, '');
  return item.isDirectory
    ? { key: `${path}/`, name: item.name, size: -1, type: FS_FILE_TYPE.folder }
    : { key: path, name: item.name, size: item.size, type: FS_FILE_TYPE.file };
}

/** One listing per connection key and folder; the 'pages' suffix keeps it apart from other screens' lists. */
const ftxFilesKey = (key: string | null, folder: string) =>
  [...agentKeys.files(key, agentFolder(folder)), 'pages'] as const;

type SelectionProps = Omit<PanelFileViewProps, 'listing' | 'trail' | 'onRefresh' | 'emptyText'>;

export interface FtxLocalBrowserProps extends SelectionProps {
  agent: AgentState;
  /** The open folder: '/' (the folders added to the agent) or '/Photos/2024/'. */
  path: string;
}

/**
 * Spec 001 §2 "ftX local browser": the files of the user's machine through the transfer agent, in the two-panel
 * screen's left panel. Not running, it offers Launch and Download (every platform: the agent runs on Linux, macOS
 * and Windows); running but not paired, it sends the user to the Cumulo Transfer page to pair; connected, it
 * lists the folders added to the agent and what is inside them, with the same selection and drag and drop as a
 * bucket.
 */
export function FtxLocalBrowser({ agent, path, ...panel }: FtxLocalBrowserProps) {
  if (!agent.running) return <NotRunning agent={agent} />;
  if (agent.needsPairing)
    return (
      <Alert
        type="info"
        showIcon
        title={agentMessages.notPaired}
        description={<Link to="/ftx">{migrationTexts.ftxPair}</Link>}
      />
    );
  if (agent.serverError !== null)
    return (
      <Alert
        type="error"
        showIcon
        title={agent.serverError}
        action={<Button onClick={() => void agent.retry()}>Retry</Button>}
      />
    );
  if (agent.key === null)
    return (
      <Space>
        <Spin size="small" />
        <Typography.Text type="secondary">Connecting to the transfer agent…</Typography.Text>
      </Space>
    );
  return <LocalFiles agent={agent} connectionKey={agent.key} path={path} {...panel} />;
}

function NotRunning({ agent }: { agent: AgentState }) {
  return (
    <Empty
      description={
        <Typography.Text strong role="status">
          {agentMessages.ftxNotRunning}
        </Typography.Text>
      }
    >
      <Space wrap style={{ justifyContent: 'center' }}>
        <Button type="primary" loading={agent.launching} onClick={agent.launch}>
          {agentMessages.launchFtx}
        </Button>
        <Link to="/desktop">{agentMessages.downloadFtx}</Link>
      </Space>
    </Empty>
  );
}

function LocalFiles({
  agent,
  connectionKey,
  path,
  ...panel
}: SelectionProps & { agent: AgentState; connectionKey: string; path: string }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const folder = agentFolder(path);
  const listing = useInfiniteQuery({
    queryKey: ftxFilesKey(connectionKey, path),
    initialPageParam: 0,
    queryFn: ({ pageParam }) => agentClient.files(connectionKey, folder, pageParam, FTX_PAGE_SIZE),
    getNextPageParam: (last, pages) =>
      last.items.length === FTX_PAGE_SIZE ? pages.length * FTX_PAGE_SIZE : undefined,
    retry: false,
    refetchOnWindowFocus: false,
  });

  // Spec §8/§4: a failed listing says so once and marks the agent not running (a 401 drops the key instead).
  const { reportFailure } = agent;
  const failure = listing.error;
  useEffect(() => {
    if (!failure) return;
    void message.error(agentMessages.proxyFilesFailed);
    reportFailure(failure);
  }, [failure, message, reportFailure]);

  const rows = useMemo(
    () => listing.data?.pages.flatMap((page) => page.items.map(panelFileOf)) ?? [],
    [listing.data],
  );

  return (
    <PanelFileView
      {...panel}
      listing={{
        rows,
        loading: listing.isPending && listing.fetchStatus !== 'idle',
        error: listing.error ? listing.error.message || agentMessages.proxyFilesFailed : null,
        hasMore: listing.hasNextPage,
        loadingMore: listing.isFetchingNextPage,
        loadMore: () => void listing.fetchNextPage(),
      }}
      trail={<LocalTrail path={path} label={panel.label} onOpenFolder={panel.onOpenFolder} />}
      onRefresh={() => void queryClient.resetQueries({ queryKey: ftxFilesKey(connectionKey, path) })}
      emptyText={agentMessages.noContent}
    />
  );
}

/** Back and the folders down to the open one; the top is the list of folders added to the agent. */
function LocalTrail({
  path,
  label,
  onOpenFolder,
}: {
  path: string;
  label: string;
  onOpenFolder(path: string): void;
}) {
  const segments = path.split('/').filter(Boolean);
  return (
    <>
      <Button
        aria-label={`Back (${label})`}
        icon={<ArrowLeftOutlined />}
        disabled={path === FTX_ROOT}
        onClick={() => onOpenFolder(parentOf(path))}
      />
      <Breadcrumb
        items={[
          {
            title:
              path === FTX_ROOT ? (
                'Added folders'
              ) : (
                <Typography.Link onClick={() => onOpenFolder(FTX_ROOT)}>Added folders</Typography.Link>
              ),
          },
          ...segments.map((segment, index) => {
            const target = `/${segments.slice(0, index + 1).join('/')}/`;
            return {
              title:
                target === path ? (
                  <span title={segment}>{displayName(segment)}</span>
                ) : (
                  <Typography.Link title={segment} onClick={() => onOpenFolder(target)}>
                    {displayName(segment)}
                  </Typography.Link>
                ),
            };
          }),
        ]}
      />
    </>
  );
}
