import { useState } from 'react';
import { App, Alert, Button, Card, Checkbox, Col, Input, Row, Space, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { TRANSFER_TYPE, transferMessages, type CloudAccountView } from '@cumulo/contract';
import { queryKeys } from '../../api/query-keys.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useQuotaGate } from '../billing/useQuotaGate.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { AccountBucketSelects } from './AccountBucketSelects.tsx';
import { BandwidthLimitControl, bandwidthLimitOf, unlimited } from './BandwidthLimitControl.tsx';
import { ChargeConfirmModal } from './ChargeConfirmModal.tsx';
import { KnowYourChargesLink } from './KnowYourChargesLink.tsx';
import { chargeConfirmed, enqueueFailureText, isChargeRefusal, useStartMigration } from './migration-api.ts';
import { migrationTexts } from './migration-texts.ts';
import { ObjectListPreview } from './ObjectListPreview.tsx';
import type { TransferKind } from './transfer-screen-state.ts';
import { TransferStartedModal } from './TransferStartedModal.tsx';
import { TransferTypeControls } from './TransferTypeControls.tsx';

interface BucketChoice {
  accountId: string | null;
  bucket: string | null;
}

const none: BucketChoice = { accountId: null, bucket: null };

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
 * one account to another with POST /transfer/transfer.
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
  const quota = useQuotaGate();
  const [startedOpen, setStartedOpen] = useState(false);

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
  };

  const listObjects = () => {
    if (!source.accountId || !source.bucket) return;
    setListed({ accountId: source.accountId, bucket: source.bucket, path: trimmedPrefix });
  };

  const copy = async (sourcePath: string) => {
    if (!source.accountId || !source.bucket || !destination.accountId || !destination.bucket) return;
    if (profile && !chargeConfirmed(profile)) {
      setChargeOpen(true);
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
      setStartedOpen(true);
    } catch (error) {
      if (isChargeRefusal(error)) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
        setChargeOpen(true);
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
              <TransferTypeControls value={transferType} onChange={setTransferType} />
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
        {direct && bucketsChosen && trimmedPrefix === '' ? (
          <Typography.Text type="secondary">{migrationTexts.prefixNeeded}</Typography.Text>
        ) : null}
      </Space>
      <ChargeConfirmModal open={chargeOpen} onClose={() => setChargeOpen(false)} />
      {quota.dialog}
      <TransferStartedModal open={startedOpen} onClose={() => setStartedOpen(false)} />
    </Space>
  );
}
