import { useEffect, useMemo, useState } from 'react';
import {
  App,
  Button,
  Card,
  Empty,
  Flex,
  Form,
  Input,
  Modal,
  Popconfirm,
  Space,
  Table,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd';
import {
  ArrowLeftOutlined,
  CloudUploadOutlined,
  DeleteOutlined,
  FileOutlined,
  FolderAddOutlined,
  FolderOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import {
  DISPLAY_NAME_MAX,
  SEARCH_DEBOUNCE_MS,
  agentMessages,
  displayName,
  objectMessages,
  type AgentLocalFile,
} from '@cumulo/contract';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { AgentError, agentClient } from './agent-client.ts';
import { agentKeys } from './agent-api.ts';
import { localParent, newLocalFolderPath } from './agent-format.ts';
import { useDebouncedValue } from '../../ui/useDebouncedValue.ts';
import { useAgentFiles } from './use-agent-files.ts';
import type { AgentState } from './use-agent.ts';

const LIST_HEIGHT = 380;
export const LOCAL_ROOT = '/';

interface LocalFilesPanelProps {
  agent: AgentState;
  path: string;
  checked: readonly AgentLocalFile[];
  onOpenFolder(path: string): void;
  onCheck(files: AgentLocalFile[]): void;
  /** Sends these local files and folders to the cloud panel's open folder. */
  onUpload(files: AgentLocalFile[]): void;
}

function failureText(error: unknown): string {
  return error instanceof AgentError ? error.message : agentMessages.notRunning;
}

/**
 * Spec 001 §2 "Local file system panel": the agent's folders (the root lists the folders added to the agent), with
 * Back, Create folder, Refresh, Upload (shown when more than one file is checked), and per row its size, a
 * checkbox, Delete (with confirmation) and Upload. A folder opens on double-click.
 */
export function LocalFilesPanel({
  agent,
  path,
  checked,
  onOpenFolder,
  onCheck,
  onUpload,
}: LocalFilesPanelProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  // The search box, as the bucket browser's: the agent filters the folder's names once typing pauses; an emptied box
  // lists the folder at once.
  const [searchText, setSearchText] = useState('');
  // The words with the folder they were typed in: words still settling from the previous folder search nothing here.
  const typing = useMemo(() => ({ path, words: searchText.trim() }), [path, searchText]);
  const typed = useDebouncedValue(typing, SEARCH_DEBOUNCE_MS);
  const search = typing.words === '' || typed.path !== path ? '' : typed.words;
  // Another folder starts unfiltered.
  const [searchedPath, setSearchedPath] = useState(path);
  if (searchedPath !== path) {
    setSearchedPath(path);
    setSearchText('');
  }
  const listing = useAgentFiles(agent.key, path, search);
  const [creating, setCreating] = useState(false);
  const { reportFailure } = agent;

  // Spec 001 §4: the list call failing marks the agent not running (or, on 401, connects afresh).
  useEffect(() => {
    if (listing.error) reportFailure(listing.error);
  }, [listing.error, reportFailure]);

  const rows = useMemo(() => listing.data?.pages.flatMap((page) => page.items) ?? [], [listing.data]);
  const atRoot = path === LOCAL_ROOT;
  const refresh = () => queryClient.resetQueries({ queryKey: agentKeys.files(agent.key, path) });

  const remove = async (file: AgentLocalFile) => {
    if (!agent.key) return;
    try {
      await agentClient.deleteFile(agent.key, file.path);
      void message.success(`${file.name} deleted`);
      onCheck(checked.filter((item) => item.path !== file.path));
      await refresh();
    } catch (error) {
      reportFailure(error);
      void message.error(failureText(error));
    }
  };

  const columns: TableColumnsType<AgentLocalFile> = [
    {
      title: 'Name',
      key: 'name',
      render: (_, row) => {
        const shown = displayName(row.name, DISPLAY_NAME_MAX);
        return (
          <span title={shown === row.name ? undefined : row.name}>
            {row.isDirectory ? <FolderOutlined /> : <FileOutlined />} {shown}
          </span>
        );
      },
    },
    {
      title: 'Size',
      key: 'size',
      width: 100,
      // Spec 001 §3: a folder's size is -1 (unknown).
      render: (_, row) => (row.isDirectory || row.size < 0 ? '—' : <ByteSize bytes={row.size} />),
    },
    {
      title: 'Actions',
      key: 'actions',
      width: 96,
      render: (_, row) => (
        <Space size={4}>
          <Tooltip title="Upload">
            <Button
              size="small"
              aria-label={`Upload ${row.name}`}
              icon={<CloudUploadOutlined />}
              onClick={() => onUpload([row])}
            />
          </Tooltip>
          {/* The added folders themselves are changed from the agent's command line only. */}
          {atRoot ? null : (
            <Popconfirm
              title={`Delete ${row.name}?`}
              description="It is deleted from this machine's disk."
              okText="Delete"
              okButtonProps={{ danger: true }}
              onConfirm={() => remove(row)}
            >
              <Button size="small" danger aria-label={`Delete ${row.name}`} icon={<DeleteOutlined />} />
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  const launchOrRefresh = (
    <Space>
      <Button type="primary" loading={agent.launching} onClick={agent.launch}>
        {agentMessages.launchAgent}
      </Button>
      <Button onClick={() => void (agent.key ? refresh() : agent.refresh())}>Refresh</Button>
    </Space>
  );

  const emptyText = !agent.running ? (
    <Empty description={agentMessages.notRunning}>{launchOrRefresh}</Empty>
  ) : agent.needsPairing ? (
    <Empty description={agentMessages.notPaired} />
  ) : agent.serverError ? (
    <Empty description={agent.serverError} />
  ) : listing.isError ? (
    <Empty description={failureText(listing.error)}>{launchOrRefresh}</Empty>
  ) : search ? (
    <Empty description={`No name in ${path} contains "${search}"`} />
  ) : (
    <Empty description={agentMessages.noContent}>{launchOrRefresh}</Empty>
  );

  return (
    <Card
      title="Local File System"
      extra={
        <Space size={4} wrap>
          <Button
            aria-label="Back (Local File System)"
            icon={<ArrowLeftOutlined />}
            disabled={atRoot || !agent.key}
            onClick={() => onOpenFolder(localParent(path))}
          />
          <Tooltip title={atRoot ? agentMessages.readOnlyRoot : undefined}>
            <Button
              aria-label="Create folder"
              icon={<FolderAddOutlined />}
              disabled={atRoot || !agent.key}
              onClick={() => setCreating(true)}
            />
          </Tooltip>
          <Button
            aria-label="Refresh (Local File System)"
            icon={<ReloadOutlined />}
            onClick={() => void (agent.key ? refresh() : agent.refresh())}
          />
          {checked.length > 1 ? (
            <Button
              type="primary"
              aria-label="Upload"
              icon={<CloudUploadOutlined />}
              onClick={() => onUpload([...checked])}
            >
              Upload
            </Button>
          ) : null}
        </Space>
      }
    >
      <div role="region" aria-label="Local files">
        <Flex justify="space-between" align="center" gap={8} wrap style={{ marginBottom: 8 }}>
          <Typography.Text type="secondary">{path}</Typography.Text>
          <Input.Search
            aria-label="Search in this local folder"
            placeholder="Search"
            allowClear
            size="small"
            disabled={!agent.key}
            value={searchText}
            onChange={(event) => setSearchText(event.target.value)}
            style={{ width: 200 }}
          />
        </Flex>
        <Table<AgentLocalFile>
          size="small"
          rowKey="path"
          columns={columns}
          dataSource={agent.key && !listing.isError ? rows : []}
          pagination={false}
          loading={agent.key !== null && listing.isPending}
          scroll={{ y: LIST_HEIGHT }}
          onRow={(row) => ({
            onDoubleClick: () => {
              if (row.isDirectory) onOpenFolder(row.path);
            },
          })}
          rowSelection={{
            selectedRowKeys: checked.map((file) => file.path),
            onChange: (_keys, chosen) => onCheck(chosen),
            getCheckboxProps: (row) => ({ 'aria-label': `Select ${row.name}` }),
          }}
          locale={{ emptyText }}
        />
        {listing.hasNextPage ? (
          <Button
            style={{ marginTop: 8 }}
            loading={listing.isFetchingNextPage}
            onClick={() => void listing.fetchNextPage()}
          >
            Load more
          </Button>
        ) : null}
      </div>
      <CreateLocalFolderModal
        open={creating}
        agent={agent}
        parent={path}
        onClose={() => setCreating(false)}
        onCreated={() => void refresh()}
      />
    </Card>
  );
}

function CreateLocalFolderModal({
  open,
  agent,
  parent,
  onClose,
  onCreated,
}: {
  open: boolean;
  agent: AgentState;
  parent: string;
  onClose(): void;
  onCreated(): void;
}) {
  const { message } = App.useApp();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const close = () => {
    setName('');
    setError(null);
    onClose();
  };

  const submit = async () => {
    if (saving) return;
    // '.' and '..' as a part of the name are refused as the cloud side refuses them, before the agent is asked.
    if (name.split(/[\\/]/).some((part) => part === '.' || part === '..')) {
      setError(objectMessages.folderNameInvalid);
      return;
    }
    const folder = newLocalFolderPath(parent, name);
    if (!folder) {
      setError(objectMessages.folderNameRequired);
      return;
    }
    if (!agent.key) return;
    setSaving(true);
    try {
      await agentClient.createDirectory(agent.key, folder);
      void message.success(`Folder ${folder} created`);
      onCreated();
      close();
    } catch (failure) {
      agent.reportFailure(failure);
      setError(failureText(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open={open}
      title="Create folder"
      okText="Create"
      onOk={() => void submit()}
      onCancel={close}
      confirmLoading={saving}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item
          label="Folder name"
          htmlFor="agent-folder-name"
          validateStatus={error ? 'error' : undefined}
          help={error ?? `Created in ${parent}`}
        >
          <Input
            id="agent-folder-name"
            autoFocus
            value={name}
            maxLength={1024}
            onChange={(event) => {
              setName(event.target.value);
              setError(null);
            }}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
