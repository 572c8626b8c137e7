import { useState } from 'react';
import { Alert, Button, Card, Select, Space, Typography } from 'antd';
import { SYNC_FREQUENCY, SYNC_FREQUENCY_LABEL, syncMessages, type SyncFrequency } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { AccountBucketSelects } from '../migration/AccountBucketSelects.tsx';
import { ChargeConfirmModal } from '../migration/ChargeConfirmModal.tsx';
import { SyncJobsTable } from './SyncJobsTable.tsx';
import { syncTexts } from './sync-texts.ts';
import { useSyncForm } from './useSyncForm.ts';

const frequencyOptions = Object.values(SYNC_FREQUENCY).map((value) => ({
  value,
  label: SYNC_FREQUENCY_LABEL[value],
}));

/**
 * /Sync (spec 001 §2 "Sync screen"): a scheduled one-way sync from a source bucket to a destination bucket, sent
 * as the saveSync payload; it copies new and changed objects and never deletes.
 */
export function SyncPage() {
  useDocumentTitle('Sync');
  const form = useSyncForm();
  const [frequency, setFrequency] = useState<SyncFrequency>(SYNC_FREQUENCY.daily);

  const confirm = () => {
    if (!form.chosen) return;
    void form.submit({
      frequency,
      source_cloud: form.chosen.sourceAccountId,
      source_bucket: form.chosen.sourceBucket,
      destination_cloud: form.chosen.destinationAccountId,
      destination_bucket: form.chosen.destinationBucket,
    });
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Sync
      </Typography.Title>
      <Card title={syncTexts.createSync}>
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          <Alert type="info" showIcon title={syncMessages.anyProvider} />
          <AccountBucketSelects
            accountLabel="Source Account"
            bucketLabel="Source Bucket"
            {...form.sourceProps}
          />
          <AccountBucketSelects
            accountLabel="Destination Account"
            bucketLabel="Destination Bucket"
            {...form.destinationProps}
          />
          <Space orientation="vertical" size={4}>
            <Typography.Text strong>Sync Frequency</Typography.Text>
            <Select<SyncFrequency>
              aria-label="Sync Frequency"
              style={{ width: 260 }}
              value={frequency}
              options={frequencyOptions}
              onChange={setFrequency}
            />
          </Space>
          <Button type="primary" disabled={!form.chosen} loading={form.saving} onClick={confirm}>
            Confirm Sync
          </Button>
        </Space>
      </Card>
      <Card title={syncTexts.syncJobs}>
        <SyncJobsTable kind="sync" label={syncTexts.syncJobs} />
      </Card>
      <ChargeConfirmModal open={form.chargeOpen} onClose={form.closeCharge} />
    </Space>
  );
}
