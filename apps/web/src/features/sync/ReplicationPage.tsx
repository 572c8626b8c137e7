import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert, Button, Card, Checkbox, Collapse, Space, Typography } from 'antd';
import { REPLICATION_OPERATION, roleMay, syncMessages, type SaveReplicationBody } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { AccountBucketSelects } from '../migration/AccountBucketSelects.tsx';
import { ChargeConfirmModal } from '../migration/ChargeConfirmModal.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { DeleteSafeguards, defaultGuard, type Guard } from './DeleteSafeguards.tsx';
import { SyncJobsTable } from './SyncJobsTable.tsx';
import { syncTexts } from './sync-texts.ts';
import { useSyncForm } from './useSyncForm.ts';

/**
 * /replication (spec 001 §2 "Replication screen"): a scheduled replication sent as the saveSyncWasabi payload;
 * with "Sync Deleted objects!" it also deletes what is gone from the source, behind the delete safeguards.
 */
export function ReplicationPage() {
  useDocumentTitle('Replication');
  const navigate = useNavigate();
  const form = useSyncForm();
  const [allowDelete, setAllowDelete] = useState(false);
  const [guard, setGuard] = useState<Guard>(defaultGuard);
  const mayLoosen = roleMay(useProfile().data?.role.title ?? '', 'sync.guard');

  const confirm = () => {
    if (!form.chosen) return;
    const body: SaveReplicationBody = {
      sourceCloudAccountId: form.chosen.sourceAccountId,
      sourceBucket: form.chosen.sourceBucket,
      destinationCloudAccountId: form.chosen.destinationAccountId,
      destinationBucket: form.chosen.destinationBucket,
      operation: REPLICATION_OPERATION,
      allowDelete,
      active: true,
      ...(allowDelete
        ? {
            quarantineDays: guard.quarantine ? guard.quarantineDays : null,
            deleteThresholdCount: guard.count,
            deleteThresholdPercent: guard.percent,
          }
        : {}),
    };
    void form.submit(body);
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {syncTexts.createReplication}
      </Typography.Title>
      <Card>
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
          <Checkbox checked={allowDelete} onChange={(event) => setAllowDelete(event.target.checked)}>
            {syncTexts.syncDeleted}
          </Checkbox>
          {allowDelete ? (
            <Collapse
              size="small"
              items={[
                {
                  key: 'safeguards',
                  label: syncTexts.advanced,
                  children: <DeleteSafeguards guard={guard} onChange={setGuard} mayLoosen={mayLoosen} />,
                },
              ]}
            />
          ) : null}
          <Button type="primary" disabled={!form.chosen} loading={form.saving} onClick={confirm}>
            Confirm Sync
          </Button>
        </Space>
      </Card>
      <Card
        title={syncTexts.replicationJobs}
        extra={<Button onClick={() => void navigate('/rboard?sync=true')}>Replication History</Button>}
      >
        <SyncJobsTable kind="replication" label={syncTexts.replicationJobs} />
      </Card>
      <ChargeConfirmModal open={form.chargeOpen} onClose={form.closeCharge} />
    </Space>
  );
}
