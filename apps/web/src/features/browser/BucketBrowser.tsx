import { useEffect, useMemo, useRef, useState, type Key, type UIEvent } from 'react';
import {
  App,
  Alert,
  Button,
  Empty,
  Input,
  Select,
  Space,
  Table,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd';
import {
  CopyOutlined,
  DeleteOutlined,
  DownloadOutlined,
  FileOutlined,
  FolderAddOutlined,
  FolderOutlined,
  InfoCircleOutlined,
  PlayCircleOutlined,
  ReloadOutlined,
  ShareAltOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import {
  DISPLAY_NAME_MAX,
  FS_FILE_TYPE,
  SEARCH_DEBOUNCE_MS,
  displayName,
  isPlayable,
  objectMessages,
  type CloudAccountView,
} from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { DateText } from '../../ui/DateText.tsx';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { MediaInfoModal } from '../media/MediaInfoModal.tsx';
import type { MediaTarget } from '../media/media-api.ts';
import { usePlayer } from '../media/usePlayer.ts';
import { holdsPackage } from '../billing/billing-api.ts';
import { HybrikEncodeDialog } from '../hybrik/HybrikEncodeDialog.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { EncodeDialog } from '../encoding/EncodeDialog.tsx';
import {
  fetchDownloadLinks,
  useDeleteObjects,
  useFolderContent,
  useFolderSearch,
  useResetBucket,
  type BrowserRow,
} from './browser-api.ts';
import { CreateFolderModal } from './CreateFolderModal.tsx';
import { FolderTrail } from './FolderTrail.tsx';
import { copyText, startDownload } from './file-links.ts';

export interface BrowserLocation {
  accountId: string;
  bucket: string;
  /** '' or 'a/b/' */
  path: string;
}

export interface BrowserFile {
  accountId: string;
  bucket: string;
  /** full key */
  path: string;
  name: string;
  size: number;
}

export interface BucketBrowserProps {
  location: BrowserLocation | null;
  onLocationChange(location: BrowserLocation | null): void;
  /** Bump to reload the current folder (e.g. after uploads finished). */
  refreshToken?: number;
  /** Only these accounts are offered in the account picker (e.g. wasabi only on /wasabi). */
  accountFilter?: (account: CloudAccountView) => boolean;
  /** The Share action; absent hides it. */
  onShare?: (files: BrowserFile[]) => void;
}

/** Height of the virtual list; rows beyond it are not in the DOM. */
const LIST_HEIGHT = 480;
/** Load the next page when the list is scrolled this close to its end. */
const LOAD_AHEAD_PX = 240;
/**
 * Column widths in px. The virtual table hands the room left over to the columns without a width, so the
 * selection column gets one (it took about 300 px otherwise) and Name, the only column without, takes the rest.
 */
const COLUMN_PX = { selection: 40, size: 90, lastModified: 110, actions: 140 } as const;
/** Name is never narrower than this; below the sum the table scrolls sideways. */
const NAME_MIN_PX = 180;
const TABLE_MIN_PX =
  NAME_MIN_PX + COLUMN_PX.selection + COLUMN_PX.size + COLUMN_PX.lastModified + COLUMN_PX.actions;

/**
 * The cloud bucket browser (spec 001 §2): account and bucket pickers, breadcrumbs and back, create folder,
 * refresh, search, a virtual list loaded 30 rows at a time, multi-select delete, and per-file actions.
 */
export function BucketBrowser({
  location,
  onLocationChange,
  refreshToken,
  accountFilter,
  onShare,
}: BucketBrowserProps) {
  const accounts = useCloudAccounts();
  const visibleAccounts = useMemo(
    () => (accounts.data ?? []).filter((account) => !accountFilter || accountFilter(account)),
    [accounts.data, accountFilter],
  );
  const [pickedAccountId, setPickedAccountId] = useState<string | null>(location?.accountId ?? null);
  useEffect(() => {
    if (location) setPickedAccountId(location.accountId);
  }, [location]);
  const account = visibleAccounts.find((candidate) => candidate.id === pickedAccountId) ?? null;

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Space wrap>
        <Select
          aria-label="Cloud account"
          style={{ minWidth: 240 }}
          placeholder="Select account"
          loading={accounts.isPending}
          showSearch={{ optionFilterProp: 'label' }}
          value={account?.id}
          options={visibleAccounts.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
          onChange={(id: string) => {
            setPickedAccountId(id);
            onLocationChange(null);
          }}
        />
        <Select
          aria-label="Bucket"
          style={{ minWidth: 240 }}
          placeholder="Select bucket"
          disabled={!account}
          showSearch={{ optionFilterProp: 'label' }}
          value={location && account && location.accountId === account.id ? location.bucket : undefined}
          options={(account?.storages ?? []).map((storage) => ({
            value: storage.bucket_name,
            label: storage.bucket_name,
          }))}
          onChange={(bucket: string) => {
            if (account) onLocationChange({ accountId: account.id, bucket, path: '' });
          }}
        />
      </Space>
      {accounts.isError ? <Alert type="error" showIcon title={describeError(accounts.error)} /> : null}
      {location && account && location.accountId === account.id ? (
        <FolderView
          key={`${location.accountId}/${location.bucket}`}
          location={location}
          onLocationChange={onLocationChange}
          refreshToken={refreshToken}
          onShare={onShare}
        />
      ) : (
        <Empty description="Select an account and a bucket to browse its files" />
      )}
    </Space>
  );
}

interface FolderViewProps {
  location: BrowserLocation;
  onLocationChange(location: BrowserLocation): void;
  refreshToken?: number;
  onShare?: (files: BrowserFile[]) => void;
}

function FolderView({ location, onLocationChange, refreshToken, onShare }: FolderViewProps) {
  const { message, modal } = App.useApp();
  const { accountId, bucket, path } = location;
  const profile = useProfile();
  const role = profile.data?.role.title;
  const mayDelete = role === 'Owner' || role === 'Admin';

  const [searchText, setSearchText] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(searchText.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [searchText]);

  const listing = useFolderContent(accountId, bucket, path, keyword === '');
  const search = useFolderSearch(accountId, bucket, path, keyword);
  const active = keyword ? search : listing;
  const rows = useMemo(() => active.data?.pages.flatMap((page) => page.rows) ?? [], [active.data]);
  const truncated = keyword !== '' && (search.data?.pages.some((page) => page.truncated) ?? false);

  const [selectedKeys, setSelectedKeys] = useState<Key[]>([]);
  useEffect(() => setSelectedKeys([]), [path, keyword]);
  const selectedRows = useMemo(() => {
    const chosen = new Set(selectedKeys);
    return rows.filter((row) => chosen.has(row.key));
  }, [rows, selectedKeys]);
  const selectedFiles = selectedRows.filter((row) => row.type === FS_FILE_TYPE.file);

  const [folderModalOpen, setFolderModalOpen] = useState(false);
  const [encoding, setEncoding] = useState<BrowserFile[] | null>(null);
  const [hybrikOpen, setHybrikOpen] = useState(false);
  const mayHybrik = profile.data ? holdsPackage(profile.data, 'Hybrik') : false;
  const resetBucket = useResetBucket();
  const reload = () => void resetBucket(accountId, bucket);
  const firstRefresh = useRef(refreshToken);
  useEffect(() => {
    if (refreshToken === firstRefresh.current) return;
    firstRefresh.current = refreshToken;
    void resetBucket(accountId, bucket);
  }, [refreshToken, accountId, bucket, resetBucket]);

  const remove = useDeleteObjects();
  const go = (nextPath: string) => onLocationChange({ accountId, bucket, path: nextPath });
  const fileOf = (row: BrowserRow): BrowserFile => ({
    accountId,
    bucket,
    path: row.key,
    name: row.name,
    size: row.size,
  });

  const download = async (files: BrowserRow[]) => {
    try {
      const links = await fetchDownloadLinks(
        accountId,
        bucket,
        files.map((file) => file.key),
      );
      for (const link of links) startDownload(link.url, link.name);
    } catch (error) {
      void message.error(error instanceof ApiError ? error.message : objectMessages.linkFailed);
    }
  };

  const copyLink = async (file: BrowserRow) => {
    let url: string;
    try {
      const [link] = await fetchDownloadLinks(accountId, bucket, [file.key]);
      if (!link) throw new Error('no link');
      url = link.url;
    } catch {
      void message.error(objectMessages.linkFailed);
      return;
    }
    void message.success(objectMessages.linkGenerated);
    try {
      await copyText(url);
      void message.success(objectMessages.linkCopied);
    } catch {
      void message.error(objectMessages.linkFailed);
    }
  };

  const confirmDelete = () => {
    const paths = selectedRows.map((row) => row.key);
    modal.confirm({
      title: 'Delete',
      content: objectMessages.deleteConfirm(paths.length),
      okText: 'Delete',
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const answer = await remove.mutateAsync({ accountId, bucket, paths });
          void message.success(answer.message);
          setSelectedKeys([]);
          reload();
        } catch (error) {
          void message.error(error instanceof ApiError ? error.message : objectMessages.deleteFailed);
        }
      },
    });
  };

  const player = usePlayer();
  const [mediaInfoOf, setMediaInfoOf] = useState<MediaTarget | null>(null);
  const mediaTargetOf = (row: BrowserRow): MediaTarget => ({
    cloud_account_id: accountId,
    bucket_name: bucket,
    path: row.key,
    name: row.name,
  });

  const onScroll = (event: UIEvent<HTMLDivElement>) => {
    const { scrollTop, scrollHeight, clientHeight } = event.currentTarget;
    if (scrollHeight - scrollTop - clientHeight < LOAD_AHEAD_PX && active.hasNextPage && !active.isFetching) {
      void active.fetchNextPage();
    }
  };

  const columns: TableColumnsType<BrowserRow> = [
    {
      title: 'Name',
      key: 'name',
      ellipsis: true,
      render: (_, row) => {
        const label = keyword ? row.key.slice(path.length).replace(/\/$/, '') || row.name : row.name;
        const shown = displayName(label, DISPLAY_NAME_MAX);
        const title = shown === label ? undefined : label;
        return row.type === FS_FILE_TYPE.folder ? (
          <Button
            type="link"
            size="small"
            icon={<FolderOutlined />}
            title={title}
            style={{ padding: 0 }}
            onClick={() => {
              setSearchText('');
              setKeyword('');
              go(row.key);
            }}
          >
            {shown}
          </Button>
        ) : (
          <span title={title}>
            <FileOutlined /> {shown}
          </span>
        );
      },
    },
    {
      title: 'Size',
      key: 'size',
      width: COLUMN_PX.size,
      render: (_, row) => (row.type === FS_FILE_TYPE.file ? <ByteSize bytes={row.size} /> : null),
    },
    {
      title: 'Last modified',
      key: 'last_modified',
      width: COLUMN_PX.lastModified,
      render: (_, row) => (row.last_modified ? <DateText value={row.last_modified} /> : null),
    },
    {
      title: 'Actions',
      key: 'actions',
      width: COLUMN_PX.actions,
      render: (_, row) =>
        row.type === FS_FILE_TYPE.file ? (
          <Space size={0}>
            <Tooltip title="Download">
              <Button
                type="text"
                size="small"
                aria-label={`Download ${row.name}`}
                icon={<DownloadOutlined />}
                onClick={() => void download([row])}
              />
            </Tooltip>
            <Tooltip title="Copy link">
              <Button
                type="text"
                size="small"
                aria-label={`Copy link of ${row.name}`}
                icon={<CopyOutlined />}
                onClick={() => void copyLink(row)}
              />
            </Tooltip>
            {onShare ? (
              <Tooltip title="Share">
                <Button
                  type="text"
                  size="small"
                  aria-label={`Share ${row.name}`}
                  icon={<ShareAltOutlined />}
                  onClick={() => onShare([fileOf(row)])}
                />
              </Tooltip>
            ) : null}
            <Tooltip title="Media info">
              <Button
                type="text"
                size="small"
                aria-label={`Media info of ${row.name}`}
                icon={<InfoCircleOutlined />}
                onClick={() => setMediaInfoOf(mediaTargetOf(row))}
              />
            </Tooltip>
            {isPlayable(row.name) ? (
              <Tooltip title="Play">
                <Button
                  type="text"
                  size="small"
                  aria-label={`Play ${row.name}`}
                  icon={<PlayCircleOutlined />}
                  onClick={() => void player.play(mediaTargetOf(row))}
                />
              </Tooltip>
            ) : null}
          </Space>
        ) : null,
    },
  ];

  return (
    <Space orientation="vertical" size="small" style={{ width: '100%' }}>
      <Space wrap style={{ justifyContent: 'space-between', width: '100%' }}>
        <Space wrap>
          <FolderTrail bucket={bucket} path={path} onOpenFolder={go} />
        </Space>
        <Space wrap>
          <Input.Search
            aria-label="Search in this folder"
            placeholder="Search"
            allowClear
            value={searchText}
            onChange={(event) => setSearchText(event.target.value)}
            onSearch={(value) => setKeyword(value.trim())}
            style={{ width: 220 }}
          />
          <Button icon={<FolderAddOutlined />} onClick={() => setFolderModalOpen(true)}>
            Create folder
          </Button>
          <Button icon={<ReloadOutlined />} onClick={reload}>
            Refresh
          </Button>
        </Space>
      </Space>

      <Space wrap>
        {selectedRows.length === 0 ? (
          <Typography.Text type="secondary">{objectMessages.selectHint}</Typography.Text>
        ) : (
          <>
            <Typography.Text>{selectedRows.length} selected</Typography.Text>
            <Tooltip title={mayDelete ? undefined : 'Only Owners and Admins can delete files.'}>
              <Button danger icon={<DeleteOutlined />} disabled={!mayDelete} onClick={confirmDelete}>
                Delete
              </Button>
            </Tooltip>
            {selectedFiles.length > 0 ? (
              <Button icon={<DownloadOutlined />} onClick={() => void download(selectedFiles)}>
                Download
              </Button>
            ) : null}
            {mayHybrik && selectedFiles.length > 0 ? (
              <Button icon={<VideoCameraOutlined />} onClick={() => setHybrikOpen(true)}>
                Transcode (Hybrik)
              </Button>
            ) : null}
            {onShare && selectedFiles.length > 0 ? (
              <Button icon={<ShareAltOutlined />} onClick={() => onShare(selectedFiles.map(fileOf))}>
                Share
              </Button>
            ) : null}
            {selectedFiles.length > 0 && profile.data?.acl.services.encoding !== false ? (
              <Button icon={<VideoCameraOutlined />} onClick={() => setEncoding(selectedFiles.map(fileOf))}>
                Encode
              </Button>
            ) : null}
          </>
        )}
      </Space>

      {active.isError ? <Alert type="error" showIcon title={describeError(active.error)} /> : null}
      {truncated ? (
        <Alert
          type="info"
          showIcon
          title="The search reads a bounded number of keys per request; Load more continues through the bucket."
        />
      ) : null}
      <Table<BrowserRow>
        virtual
        size="small"
        rowKey="key"
        columns={columns}
        dataSource={rows}
        pagination={false}
        loading={active.isPending && active.fetchStatus !== 'idle'}
        scroll={{ x: TABLE_MIN_PX, y: LIST_HEIGHT }}
        onScroll={onScroll}
        rowSelection={{
          columnWidth: COLUMN_PX.selection,
          selectedRowKeys: selectedKeys,
          onChange: setSelectedKeys,
          // The virtual table's rows carry no row role: name each checkbox after its file or folder.
          getCheckboxProps: (row) => ({ 'aria-label': `Select ${row.name}` }),
        }}
        // A listing that failed says why in the alert above, not also that the folder is empty.
        locale={{ emptyText: active.isError ? ' ' : keyword ? 'No matching files' : 'This folder is empty' }}
      />
      <Space>
        {active.hasNextPage ? (
          <Button loading={active.isFetchingNextPage} onClick={() => void active.fetchNextPage()}>
            Load more
          </Button>
        ) : null}
        <Typography.Text type="secondary">
          {rows.length} item{rows.length === 1 ? '' : 's'}
          {active.hasNextPage ? ' loaded' : ''}
        </Typography.Text>
      </Space>

      <CreateFolderModal
        open={folderModalOpen}
        accountId={accountId}
        bucket={bucket}
        parentPath={path}
        onClose={() => setFolderModalOpen(false)}
        onCreated={reload}
      />
      {encoding ? <EncodeDialog files={encoding} onClose={() => setEncoding(null)} /> : null}
      <MediaInfoModal target={mediaInfoOf} onClose={() => setMediaInfoOf(null)} />
      <HybrikEncodeDialog
        open={hybrikOpen}
        files={selectedFiles.map(fileOf)}
        onClose={() => setHybrikOpen(false)}
      />
    </Space>
  );
}
