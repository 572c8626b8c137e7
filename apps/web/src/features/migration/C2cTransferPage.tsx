import { useCallback, useEffect, useRef, useState } from 'react';
import { App, Button, Col, Empty, Row, Space, Tooltip, Typography } from 'antd';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { C2C_TYPE, roleMay, transferMessages, uploadMessages, type AgentDirection } from '@cumulo/contract';
import { queryKeys } from '../../api/query-keys.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { agentClient } from '../agent/agent-client.ts';
import { agentKeys } from '../agent/agent-api.ts';
import { useAgent } from '../agent/use-agent.ts';
import { useResetBucket } from '../browser/browser-api.ts';
import { useQuotaGate } from '../billing/useQuotaGate.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { LocalUploadPane } from '../upload/LocalUploadPane.tsx';
import { UploadList } from '../upload/UploadList.tsx';
import type { UploadFileView } from '../upload/upload-engine.ts';
import { applyBucketCors } from '../upload/upload-transport.ts';
import { useUploadEngine, useUploadSnapshot } from '../upload/useUploadEngine.ts';
import { ChargeConfirmModal, type ChargeKind } from './ChargeConfirmModal.tsx';
import { FtxLocalBrowser, agentFolder, agentPathOf } from './FtxLocalBrowser.tsx';
import { KnowYourChargesLink } from './KnowYourChargesLink.tsx';
import { chargeConfirmed, enqueueFailureText, isChargeRefusal, useC2cMove } from './migration-api.ts';
import { migrationTexts } from './migration-texts.ts';
import { TransferPanel } from './TransferPanel.tsx';
import { TransferStartedModal } from './TransferStartedModal.tsx';
import { TransferTypeControls } from './TransferTypeControls.tsx';
import {
  FTX_ROOT,
  LOCAL_ACCOUNT,
  SIDES,
  applyOptimistic,
  chooseAccount,
  chooseBucket,
  chooseTransferType,
  openFolder,
  otherSide,
  revertOptimistic,
  selectFiles,
  setOrder,
  settleAgentTransfer,
  trackAgentTransfer,
  transferDirection,
  type PanelFile,
  type Side,
} from './transfer-screen-state.ts';
import { transferScreenStore, useTransferScreen } from './transfer-screen-store.ts';
import { useFtxTransfer } from './use-ftx-transfer.ts';

/** Spec 001 §2/§9: the account list is initialised after a 500 ms delay. */
export const ACCOUNT_LIST_DELAY_MS = 500;

/** An agent transfer in one of these states moves no more files: its panel can be listed again. */
const AGENT_ENDED = new Set(['completed', 'failed', 'cancelled']);

export type TransferScreenVariant = 'c2c' | 'transfers' | 'prod2' | 'prod3' | 'wasabic2c';

const VARIANT_TITLE: Record<TransferScreenVariant, string> = {
  c2c: 'Transfers',
  transfers: 'Transfers',
  prod2: 'Cloud to Cloud Transfers',
  prod3: 'Cloud to Cloud Transfers',
  wasabic2c: 'Wasabi Cloud to Cloud Transfers',
};

/** /wasabic2c copies into Wasabi: its destination panel offers the organisation's Wasabi accounts only. */
const WASABI_DESTINATION: ReadonlySet<TransferScreenVariant> = new Set(['wasabic2c']);

/**
 * /c2c, /transfers, /prod2 and /prod3 (spec 001 §2 "Two-panel file transfer page", §4 "Transfer flow"), and
 * /wasabic2c with the first Wasabi account preselected as the destination: pick files on one side,
 * then Move or Copy them (or drag them) to the other side's open folder with POST /c2c/moveaws. A "Local" source
 * uploads through the direct-upload engine into the destination folder. With type ftX the left panel is the
 * transfer agent's local files (spec 001 §2 "ftX local browser"): left to right is the agent's upload into the
 * open bucket folder, right to left its download into the open local folder. The state lives in a module-level
 * store, so it is kept when the user leaves and returns.
 */
export function C2cTransferPage({ variant }: { variant: TransferScreenVariant }) {
  const title = VARIANT_TITLE[variant];
  const wasabiDestination = WASABI_DESTINATION.has(variant);
  useDocumentTitle(title);
  const store = transferScreenStore(variant);
  const state = useTransferScreen(store);
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const profile = useProfile().data;
  const accountsQuery = useCloudAccounts();
  const move = useC2cMove(wasabiDestination ? '/c2c/moveWasabi' : '/c2c/moveaws');
  const resetBucket = useResetBucket();
  const [chargeOpen, setChargeOpen] = useState(false);
  const [chargeKind, setChargeKind] = useState<ChargeKind>('c2c');
  const quota = useQuotaGate();
  const [startedOpen, setStartedOpen] = useState(false);
  const [startedByAgent, setStartedByAgent] = useState(false);
  const [applyingId, setApplyingId] = useState<string | null>(null);
  const ftx = state.transferType === 'ftX';
  // The agent is asked about only while ftX is chosen; its transfers are polled to see ours end.
  const agent = useAgent({ enabled: ftx });
  const ftxTransfer = useFtxTransfer({
    agent,
    profile,
    quotaCheck: (user, bytes) => quota.check(user, 'fc', bytes),
    onChargeNeeded: () => openCharge('ftx'),
  });
  const settling = useRef(new Set<string>());

  const openCharge = (kind: ChargeKind) => {
    setChargeKind(kind);
    setChargeOpen(true);
  };
  const showStarted = (byAgent: boolean) => {
    setStartedByAgent(byAgent);
    setStartedOpen(true);
  };

  // Another user signing in on this tab must not find the previous user's panels.
  useEffect(() => {
    if (!profile) return;
    const owner = store.get().userId;
    if (owner === null) store.update((current) => ({ ...current, userId: profile.id }));
    else if (owner !== profile.id) store.reset(profile.id);
  }, [profile, store]);

  useEffect(() => {
    if (state.accountsReady) return;
    const timer = setTimeout(
      () => store.update((current) => ({ ...current, accountsReady: true })),
      ACCOUNT_LIST_DELAY_MS,
    );
    return () => clearTimeout(timer);
  }, [state.accountsReady, store]);

  const accounts = state.accountsReady ? (accountsQuery.data ?? []) : [];
  const destinationAccounts = wasabiDestination
    ? accounts.filter((account) => account.provider === 'wasabi')
    : accounts;
  const destination = state.panels.destination;

  // /wasabic2c opens on the organisation's first Wasabi account and its first bucket, once per screen state.
  const firstWasabi = wasabiDestination && state.accountsReady ? destinationAccounts[0] : undefined;
  useEffect(() => {
    if (!firstWasabi || store.get().panels.destination.accountId !== null) return;
    store.update((now) =>
      chooseAccount(now, 'destination', firstWasabi.id, firstWasabi.storages[0]?.bucket_name ?? null),
    );
  }, [firstWasabi, store]);
  const localSource = state.panels.source.accountId === LOCAL_ACCOUNT;

  const onUploadsSettled = useCallback(() => {
    const target = store.get().panels.destination;
    if (target.accountId && target.bucket) void resetBucket(target.accountId, target.bucket);
  }, [resetBucket, store]);
  const { engine } = useUploadEngine(onUploadsSettled);
  const snapshot = useUploadSnapshot(engine);

  const uploadLocal = () => {
    if (!destination.accountId || !destination.bucket) {
      void message.warning(uploadMessages.selectBucket);
      return;
    }
    engine.enqueue(state.localChosen, {
      cloudAccountId: destination.accountId,
      bucketName: destination.bucket,
      path: destination.path,
      acl: 'private',
      s3Acceleration: false,
    });
    store.update((current) => ({ ...current, localChosen: [] }));
  };

  const applyCors = async (file: UploadFileView) => {
    setApplyingId(file.id);
    try {
      await applyBucketCors(file.cloudAccountId, file.bucketName);
      engine.retryFailed();
    } catch {
      void message.error(uploadMessages.corsFailed);
    } finally {
      setApplyingId(null);
    }
  };

  const transfer = async (from: Side, files: PanelFile[], operation: 'move' | 'copy') => {
    const current = store.get();
    const source = current.panels[from];
    const target = current.panels[otherSide(from)];
    if (current.transferType === 'ftX') {
      await transferByAgent(from, files);
      return;
    }
    if (files.length === 0) {
      void message.warning(transferMessages.selectFiles);
      return;
    }
    if (source.accountId === LOCAL_ACCOUNT || target.accountId === LOCAL_ACCOUNT) {
      void message.info(migrationTexts.localIsSourceOnly);
      return;
    }
    if (!source.accountId || !source.bucket || !target.accountId || !target.bucket) {
      void message.warning(migrationTexts.chooseBuckets);
      return;
    }
    // Spec 001 §4: a Direct transfer within the same account and bucket is ignored.
    if (source.accountId === target.accountId && source.bucket === target.bucket) {
      void message.info(migrationTexts.sameBucketIgnored);
      return;
    }
    // The check comes before the optimistic move, so the files never visibly jump and back.
    if (profile && !chargeConfirmed(profile)) {
      openCharge('c2c');
      return;
    }
    // Spec 001 §5: a convenience check on the sizes the panel knows (a folder's size is the server's to count).
    if (
      profile &&
      !quota.check(
        profile,
        'c2c',
        files.reduce((sum, file) => sum + file.size, 0),
      )
    )
      return;
    const folder = target.path;
    store.update((now) => applyOptimistic(now, from, files, operation));
    try {
      const answer = await move.mutateAsync({
        files: files.map((file) => ({ path: file.key, bucket_name: source.bucket ?? '' })),
        cloud_id: source.accountId,
        type: operation === 'move' ? C2C_TYPE.move : C2C_TYPE.copy,
        destination: { cloud_id: target.accountId, bucket_name: target.bucket, path: folder },
        skip_active: false,
      });
      void message.success(answer.message || transferMessages.enqueued);
      showStarted(false);
    } catch (error) {
      store.update((now) => revertOptimistic(now, from, files, folder));
      if (isChargeRefusal(error)) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
        openCharge('c2c');
        return;
      }
      if (quota.showRefusal(error)) return;
      void message.error(enqueueFailureText(error));
    }
  };

  /**
   * ftX (spec 001 §4): the agent copies, from the left (local) into the open bucket folder, or from the bucket
   * into the open local folder, which must be inside a folder added to the agent. No same-bucket rule applies.
   */
  const transferByAgent = async (from: Side, files: PanelFile[]) => {
    const current = store.get();
    const cloud = current.panels.destination;
    const localFolder = current.panels.source.path;
    const way: AgentDirection = from === 'source' ? 'upload' : 'download';
    if (files.length === 0) {
      void message.warning(transferMessages.selectFiles);
      return;
    }
    if (!cloud.accountId || !cloud.bucket) {
      void message.warning(uploadMessages.selectBucket);
      return;
    }
    const key = ftxTransfer.agentReady(way);
    if (key === null) return;
    if (way === 'download' && localFolder === FTX_ROOT) {
      void message.warning(migrationTexts.ftxPickLocalFolder);
      return;
    }
    // A local folder's size is -1 (spec §3): the agent counts it; the check covers what the panel knows.
    if (!ftxTransfer.allowed(files.reduce((sum, file) => sum + Math.max(0, file.size), 0))) return;
    const to = otherSide(from);
    const folder = current.panels[to].path;
    store.update((now) => applyOptimistic(now, from, files, 'copy'));
    try {
      const transferId =
        way === 'upload'
          ? await agentClient.upload(key, files.map(agentPathOf), {
              cloud_account_id: cloud.accountId,
              bucket_name: cloud.bucket,
              path: cloud.path,
            })
          : await agentClient.download(key, {
              remotePaths: files.map((file) => file.key),
              cloud_account_id: cloud.accountId,
              bucket_name: cloud.bucket,
              localPath: agentFolder(localFolder),
            });
      store.update((now) => trackAgentTransfer(now, transferId, to, files, folder));
      showStarted(true);
    } catch (error) {
      store.update((now) => revertOptimistic(now, from, files, folder));
      ftxTransfer.failed(error, way);
    }
  };

  // An agent transfer of ours ended: list its panel again, then its rows stop showing "Transferring".
  const agentTransfers = agent.transfers;
  const tracked = state.agentTransfers;
  useEffect(() => {
    for (const entry of tracked) {
      const reported = agentTransfers.find((transfer) => transfer.transferID === entry.transferId);
      if (!reported || !AGENT_ENDED.has(reported.status) || settling.current.has(entry.transferId)) continue;
      settling.current.add(entry.transferId);
      const target = store.get().panels[entry.side];
      const relisted =
        entry.side === 'source'
          ? queryClient.invalidateQueries({ queryKey: [...agentKeys.all, 'files'] })
          : target.accountId && target.bucket
            ? resetBucket(target.accountId, target.bucket)
            : Promise.resolve();
      void relisted.finally(() => {
        settling.current.delete(entry.transferId);
        store.update((now) => settleAgentTransfer(now, entry.transferId));
      });
    }
  }, [agentTransfers, tracked, queryClient, resetBucket, store]);

  const direction = transferDirection(state);
  const intoLocal = direction !== null && state.panels[direction.to].accountId === LOCAL_ACCOUNT;
  const buttonsEnabled = direction !== null && !intoLocal;
  const runButton = (operation: 'move' | 'copy') => {
    if (!direction) {
      void message.warning(transferMessages.selectFiles);
      return;
    }
    void transfer(direction.from, state.selected[direction.from], operation);
  };

  const noSelection = SIDES.every((side) => state.selected[side].length === 0);
  const mayMove = roleMay(profile?.role.title ?? '', 'transfer.move');
  const mayConfigureBuckets = roleMay(profile?.role.title ?? '', 'bucket.configure');

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {title}
      </Typography.Title>
      <KnowYourChargesLink />
      <Row gutter={[16, 16]}>
        {SIDES.map((side) => (
          <Col key={side} xs={24} lg={12}>
            <TransferPanel
              side={side}
              accounts={side === 'destination' ? destinationAccounts : accounts}
              accountsLoading={!state.accountsReady || accountsQuery.isPending}
              noAccounts={
                side === 'destination' && wasabiDestination ? (
                  <Empty description={migrationTexts.noWasabiAccount}>
                    <Link to="/addProvider/wasabi">Add a Wasabi account</Link>
                  </Empty>
                ) : undefined
              }
              location={state.panels[side]}
              selected={state.selected[side]}
              order={state.order[side]}
              overlay={state.overlay[side]}
              onAccountChange={(accountId) => {
                const account = accounts.find((candidate) => candidate.id === accountId);
                store.update((now) =>
                  chooseAccount(now, side, accountId, account?.storages[0]?.bucket_name ?? null),
                );
              }}
              onBucketChange={(bucket) => store.update((now) => chooseBucket(now, side, bucket))}
              onOpenFolder={(path) => store.update((now) => openFolder(now, side, path))}
              onSelect={(files) => store.update((now) => selectFiles(now, side, files))}
              onReorder={(order) => store.update((now) => setOrder(now, side, order))}
              // A drag copies: dropping never deletes data; Move is one button away.
              onDropFromOther={(from, files) => void transfer(from, files, 'copy')}
              ftxBrowser={
                side === 'source' && ftx ? (
                  <FtxLocalBrowser
                    agent={agent}
                    side="source"
                    label="Source files"
                    path={state.panels.source.path}
                    selected={state.selected.source}
                    order={state.order.source}
                    overlay={state.overlay.source}
                    onSelect={(files) => store.update((now) => selectFiles(now, 'source', files))}
                    onOpenFolder={(path) => store.update((now) => openFolder(now, 'source', path))}
                    onReorder={(order) => store.update((now) => setOrder(now, 'source', order))}
                    onDropFromOther={(from, files) => void transfer(from, files, 'copy')}
                  />
                ) : undefined
              }
              localArea={
                side === 'source' ? (
                  <LocalUploadPane
                    title="Local"
                    chosen={state.localChosen}
                    // Hidden names are left out here too; the count is shown on /S3Direct only.
                    hiddenSkipped={0}
                    onChoose={({ files }) =>
                      store.update((now) => ({ ...now, localChosen: [...now.localChosen, ...files] }))
                    }
                    onClear={() => store.update((now) => ({ ...now, localChosen: [] }))}
                    onUpload={uploadLocal}
                  />
                ) : undefined
              }
              extra={
                side === 'destination' ? (
                  <TransferTypeControls
                    value={state.transferType}
                    onChange={(kind) => store.update((now) => chooseTransferType(now, kind))}
                  />
                ) : undefined
              }
            />
          </Col>
        ))}
      </Row>
      <Space wrap>
        {/* A move deletes the sources: an Owner's or Admin's call (the server refuses anyone else). */}
        {mayMove && ftx ? (
          // The agent copies; a move would delete the user's local files (or the bucket's) after the copy.
          <Tooltip title={migrationTexts.ftxCopyOnly}>
            <Button type="primary" disabled>
              Move
            </Button>
          </Tooltip>
        ) : mayMove ? (
          <Button
            type="primary"
            disabled={!buttonsEnabled}
            loading={move.isPending}
            onClick={() => runButton('move')}
          >
            Move
          </Button>
        ) : null}
        <Button
          type="primary"
          disabled={!buttonsEnabled}
          loading={move.isPending}
          onClick={() => runButton('copy')}
        >
          Copy
        </Button>
        {noSelection && !localSource ? (
          <Typography.Text type="warning">{transferMessages.selectFiles}</Typography.Text>
        ) : direction === null && !noSelection ? (
          <Typography.Text type="warning">{migrationTexts.oneSideOnly}</Typography.Text>
        ) : intoLocal ? (
          <Typography.Text type="secondary">{migrationTexts.localIsSourceOnly}</Typography.Text>
        ) : null}
        {ftx ? <Typography.Text type="secondary">{migrationTexts.ftxCopyOnly}</Typography.Text> : null}
      </Space>
      {localSource || snapshot.files.length > 0 || snapshot.directories.length > 0 ? (
        <UploadList
          snapshot={snapshot}
          onCancel={(id) => engine.cancel(id)}
          onCancelDirectory={(id) => engine.cancelDirectory(id)}
          onApplyCors={mayConfigureBuckets ? (file) => void applyCors(file) : undefined}
          onDismiss={(id) => engine.dismiss(id)}
          onRetryFailed={() => engine.retryFailed()}
          applyingId={applyingId}
        />
      ) : null}
      <ChargeConfirmModal open={chargeOpen} kind={chargeKind} onClose={() => setChargeOpen(false)} />
      {quota.dialog}
      <TransferStartedModal open={startedOpen} agent={startedByAgent} onClose={() => setStartedOpen(false)} />
    </Space>
  );
}
