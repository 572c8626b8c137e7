import { useState } from 'react';
import { App, Modal } from 'antd';
import type { SyncJob } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DeleteSafeguards, guardOf, type Guard } from './DeleteSafeguards.tsx';
import { useSaveSyncOptions } from './sync-api.ts';
import { syncTexts } from './sync-texts.ts';

/**
 * Changes the delete safeguards of an existing replication (PUT /sync/options): the approval thresholds and the
 * quarantine. Offered to Owners and Admins only, as the server allows.
 */
export function SafeguardsModal({
  job,
  jobName,
  onClose,
}: {
  job: SyncJob;
  jobName: string;
  onClose(): void;
}) {
  const { message } = App.useApp();
  const save = useSaveSyncOptions();
  const [guard, setGuard] = useState<Guard>(() => guardOf(job));

  const onSave = async () => {
    try {
      await save.mutateAsync({
        id: job.info.id,
        quarantineDays: guard.quarantine ? guard.quarantineDays : null,
        deleteThresholdCount: guard.count,
        deleteThresholdPercent: guard.percent,
      });
      void message.success(syncTexts.safeguardsSaved);
      onClose();
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  return (
    <Modal
      open
      title={`${syncTexts.advanced}: ${jobName}`}
      okText="Save"
      confirmLoading={save.isPending}
      onOk={() => void onSave()}
      onCancel={onClose}
      destroyOnHidden
    >
      <DeleteSafeguards guard={guard} onChange={setGuard} />
    </Modal>
  );
}
