import { useState } from 'react';
import { App, Alert, Button, Card, Checkbox, Col, Input, Row, Space, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { TRANSFER_TYPE, transferMessages, uploadMessages, type CloudAccountView } from '@cumulo/contract';
import { queryKeys } from '../../api/query-keys.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { agentClient } from '../agent/agent-client.ts';
import { useAgent } from '../agent/use-agent.ts';
import { useQuotaGate } from '../billing/useQuotaGate.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { AccountBucketSelects } from './AccountBucketSelects.tsx';
import { BandwidthLimitControl, bandwidthLimitOf, unlimited } from './BandwidthLimitControl.tsx';
import { ChargeConfirmModal, type ChargeKind } from './ChargeConfirmModal.tsx';
import { FtxLocalBrowser, agentPathOf } from './FtxLocalBrowser.tsx';
import { KnowYourChargesLink } from './KnowYourChargesLink.tsx';
import { chargeConfirmed, enqueueFailureText, isChargeRefusal, useStartMigration } from './migration-api.ts';
import { migrationTexts } from './migration-texts.ts';
import { ObjectListPreview } from './ObjectListPreview.tsx';
import { FTX_ROOT, type PanelFile, type PanelOverlay, type TransferKind } from './transfer-screen-state.ts';
import { TransferStartedModal } from './TransferStartedModal.tsx';
import { TransferTypeControls } from './TransferTypeControls.tsx';
import { useFtxTransfer } from './use-ftx-transfer.ts';

interface BucketChoice {
  accountId: string | null;
  bucket: string | null;
}

const none: BucketChoice = { accountId: null, bucket: null };

/** The migration page shows no optimistic rows: nothing of the destination is listed here. */
const noOverlay: PanelOverlay = { added: [], removed: [] };

/** Spec 001 §4: changing the account resets the bucket to that account's first bucket. */
function chooseAccount(accounts: readonly CloudAccountView[], accountId: string): BucketChoice {
  const account = accounts.find((candidate) => candidate.id === accountId);
  return { accountId, bucket: account?.storages[0]?.bucket_name ?? null };
}

/**
 * The prefix as typed, without leading slashes (keys have none). A prefix is a prefix: 'gallery/thumb_01' means
 * the keys starting with it, 'gallery/' a folder; both the listing and the copy take it so.
 */
function keyPrefix(prefix: string): string {
  return prefix.replace(/^\/+/, '');
}

/**
 * Where a prefix copy writes, so that every key keeps its name: the engine keeps keys relative to the folder the
 * source path names ('reports/2024/' or 'reports/2024/q' → 'reports/2024/'), so the destination path is that
 * folder. A prefix chooses files (spec 001 §1); it does not move them to the bucket root.
 */
function prefixFolder(sourcePath: string): string {
  return sourcePath.slice(0, sourcePath.lastIndexOf('/') + 1);
}

/**
 * /migration (spec 001 §2 "Migration page (two panels)"): copy a whole bucket, or the objects under a prefix, from
 * one account to another with POST /transfer/transfer. With type ftX the source is the transfer agent's local
 * files (spec 001 §2 "ftX local browser"): the chosen files and folders are copied by the agent into the
 * destination bucket; the bucket-wide copies do not apply.
 */
export function MigrationPage() {
  useDocumentTitle('Migration');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const profile = useProfile().data;
  const accountsQuery = useCloudAccounts();
  const accounts = accountsQuery.data ?? [];
  const start = useStartMigration();

  const [source, setSource] = useState<BucketChoice>(none);
  const [destination, setDestination] = useState<BucketChoice>(none);
  const [transferType, setTransferType] = useState<TransferKind>('Direct');
  const [allowSkip, setAllowSkip] = useState(false);
  const [usePrefix, setUsePrefix] = useState(false);
  const [prefix, setPrefix] = useState('');
  const [bandwidth, setBandwidth] = useState(unlimited);
  const [listed, setListed] = useState<{ accountId: string; bucket: string; path: string } | null>(null);
  const [chargeOpen, setChargeOpen] = useState(false);
  const [chargeKind, setChargeKind] = useState<ChargeKind>('c2c');
  const quota = useQuotaGate();
  const [startedOpen, setStartedOpen] = useState(false);
  const [startedByAgent, setStartedByAgent] = useState(false);
  const [localFolder, setLocalFolder] = useState(FTX_ROOT);
  const [localSelected, setLocalSelected] = useState<PanelFile[]>([]);
  const [localOrder, setLocalOrder] = useState<string[]>([]);
  const ftx = transferType === 'ftX';
  const agent = useAgent({ enabled: ftx, pollTransfers: false });
  const ftxTransfer = useFtxTransfer({
    agent,
    profile,
    quotaCheck: (user, bytes) => quota.check(user, 'fc', bytes),
    onChargeNeeded: () => openCharge('ftx'),
  });
  const [copyingByAgent, setCopyingByAgent] = useState(false);

  const openCharge = (kind: ChargeKind) => {
    setChargeKind(kind);
    setChargeOpen(true);
  };
  const showStarted = (byAgent: boolean) => {
    setStartedByAgent(byAgent);
    setStartedOpen(true);
  };

  /** Spec 001 §4: switching to ftX clears the source account; choosing a source account goes back to Direct. */
  const changeType = (kind: TransferKind) => {
    setTransferType(kind);
    if (kind === 'ftX') {
      setSource(none);
      setListed(null);
      openLocalFolder(FTX_ROOT);
    }
  };
  const openLocalFolder = (folder: string) => {
    setLocalFolder(folder);
    setLocalSelected([]);
    setLocalOrder([]);
  };

  const trimmedPrefix = usePrefix ? keyPrefix(prefix.trim()) : '';
  const bucketsChosen = Boolean(
    source.accountId && source.bucket && destination.accountId && destination.bucket,
  );
  const direct = transferType === 'Direct';
  const bandwidthLimit = bandwidthLimitOf(bandwidth);
  const startable = direct && bucketsChosen && bandwidthLimit !== null;

  const changeSource = (next: BucketChoice) => {
    setSource(next);
    setListed(null);
    setTransferType('Direct');
  };

  /** ftX: the agent copies the chosen local files and folders into the destination bucket's top folder. */
  const copyByAgent = async () => {
    if (localSelected.length === 0) {
      void message.warning(transferMessages.selectFiles);
      return;
    }
    if (!destination.accountId || !destination.bucket) {
      void message.warning(uploadMessages.selectBucket);
      return;
    }
    const key = ftxTransfer.agentReady('upload');
    if (key === null) return;
    if (!ftxTransfer.allowed(localSelected.reduce((sum, file) => sum + Math.max(0, file.size), 0))) return;
    setCopyingByAgent(true);
    try {
      await agentClient.upload(key, localSelected.map(agentPathOf), {
        cloud_account_id: destination.accountId,
        bucket_name: destination.bucket,
        path: '',
      });
      setLocalSelected([]);
      showStarted(true);
    } catch (error) {
      ftxTransfer.failed(error, 'upload');
    } finally {
      setCopyingByAgent(false);
    }
  };

  const listObjects = () => {
    if (!source.accountId || !source.bucket) return;
    setListed({ accountId: source.accountId, bucket: source.bucket, path: trimmedPrefix });
  };

  const copy = async (sourcePath: string) => {
    if (!source.accountId || !source.bucket || !destination.accountId || !destination.bucket) return;
    if (profile && !chargeConfirmed(profile)) {
      openCharge('c2c');
      return;
    }
    try {
      const answer = await start.mutateAsync({
        sourceCloudAccountId: source.accountId,
        sourceBucket: source.bucket,
        sourcePath,
        destinationCloudAccountId: destination.accountId,
        destinationBucket: destination.bucket,
        destinationPath: prefixFolder(sourcePath),
        transferType: TRANSFER_TYPE.migration,
        allowSkip,
        operation: 'copy',
        ...(bandwidthLimit ? { bandwidthLimit } : {}),
      });
      void message.success(answer.message || transferMessages.enqueued);
      showStarted(false);
    } catch (error) {
      if (isChargeRefusal(error)) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
        openCharge('c2c');
        return;
      }
      if (quota.showRefusal(error)) return;
      void message.error(enqueueFailureText(error));
    }
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Migration
      </Typography.Title>
      <KnowYourChargesLink />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card title="1 Select Source" style={{ height: '100%' }}>
            <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
              <AccountBucketSelects
                accountLabel="Source Account"
                bucketLabel="Source Bucket"
                accounts={accounts}
                loading={accountsQuery.isPending}
                accountId={source.accountId}
                bucket={source.bucket}
                onAccountChange={(id) => changeSource(chooseAccount(accounts, id))}
                onBucketChange={(bucket) => changeSource({ ...source, bucket })}
              />
              {ftx ? (
                <FtxLocalBrowser
                  agent={agent}
                  side="source"
                  label="Source files"
                  path={localFolder}
                  selected={localSelected}
                  order={localOrder}
                  overlay={noOverlay}
                  onSelect={setLocalSelected}
                  onOpenFolder={openLocalFolder}
                  onReorder={setLocalOrder}
                  // Only one panel lists files here: nothing can be dropped from the destination.
                  onDropFromOther={() => undefined}
                />
              ) : (
                <>
                  <Checkbox checked={allowSkip} onChange={(event) => setAllowSkip(event.target.checked)}>
                    Skip Existing Files
                  </Checkbox>
                  <BandwidthLimitControl value={bandwidth} onChange={setBandwidth} />
                  <Space wrap>
                    <Checkbox checked={usePrefix} onChange={(event) => setUsePrefix(event.target.checked)}>
                      Use a prefix
                    </Checkbox>
                    <Input
                      aria-label="Prefix"
                      placeholder="folder/sub-folder/"
                      disabled={!usePrefix}
                      value={prefix}
                      onChange={(event) => setPrefix(event.target.value)}
                      style={{ width: 260 }}
                    />
                    <Button disabled={!source.accountId || !source.bucket} onClick={listObjects}>
                      List Objects
                    </Button>
                  </Space>
                  {listed ? (
                    <ObjectListPreview
                      key={`${listed.accountId}/${listed.bucket}/${listed.path}`}
                      accountId={listed.accountId}
                      bucket={listed.bucket}
                      prefix={listed.path}
                    />
                  ) : null}
                </>
              )}
            </Space>
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card title="2 Select Destination" style={{ height: '100%' }}>
            <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
              <AccountBucketSelects
                accountLabel="Destination Account"
                bucketLabel="Destination Bucket"
                accounts={accounts}
                loading={accountsQuery.isPending}
                accountId={destination.accountId}
                bucket={destination.bucket}
                onAccountChange={(id) => setDestination(chooseAccount(accounts, id))}
                onBucketChange={(bucket) => setDestination({ ...destination, bucket })}
              />
              <TransferTypeControls value={transferType} onChange={changeType} />
            </Space>
          </Card>
        </Col>
      </Row>
      {direct && !bucketsChosen ? <Alert type="info" showIcon title={migrationTexts.chooseBuckets} /> : null}
      <Space wrap>
        <Button
          type="primary"
          disabled={!startable || trimmedPrefix === ''}
          loading={start.isPending}
          onClick={() => void copy(trimmedPrefix)}
        >
          Copy Using Prefix
        </Button>
        <Button type="primary" disabled={!startable} loading={start.isPending} onClick={() => void copy('')}>
          Copy Entire Buckets
        </Button>
        {ftx ? (
          <Button
            type="primary"
            disabled={localSelected.length === 0 || !destination.bucket}
            loading={copyingByAgent}
            onClick={() => void copyByAgent()}
          >
            Copy to Destination
          </Button>
        ) : null}
        {direct && bucketsChosen && trimmedPrefix === '' ? (
          <Typography.Text type="secondary">{migrationTexts.prefixNeeded}</Typography.Text>
        ) : null}
      </Space>
      {ftx ? <Alert type="info" showIcon title={migrationTexts.ftxBucketCopies} /> : null}
      <ChargeConfirmModal open={chargeOpen} kind={chargeKind} onClose={() => setChargeOpen(false)} />
      {quota.dialog}
      <TransferStartedModal open={startedOpen} agent={startedByAgent} onClose={() => setStartedOpen(false)} />
    </Space>
  );
}
