import { useState } from 'react';
import { App, Alert, Modal, Select, Space, Typography } from 'antd';
import { hybrikMessages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useCreateHybrikJob, useHybrikProfiles, useHybrikSettings } from './hybrik-api.ts';

/** A file the dialog runs a profile on. */
interface HybrikSourceFile {
  accountId: string;
  bucket: string;
  path: string;
  name: string;
}

interface HybrikEncodeDialogProps {
  open: boolean;
  files: HybrikSourceFile[];
  onClose(): void;
}

/**
 * The hybrik-encode dialog (spec 001 §2 Dialogs): pick a profile and run it on the selected files, one job each,
 * with the file as `definitions.source` and the output bucket of Settings as `destination`.
 */
export function HybrikEncodeDialog({ open, files, onClose }: HybrikEncodeDialogProps) {
  const { message } = App.useApp();
  const profiles = useHybrikProfiles(open);
  const settings = useHybrikSettings(open);
  const createJob = useCreateHybrikJob();
  const [profileId, setProfileId] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const output = settings.data?.hybrik_profiles_bucket ?? null;

  const close = () => {
    setFailure(null);
    onClose();
  };

  const run = async () => {
    if (!profileId || !output) return;
    setFailure(null);
    try {
      for (const file of files) {
        await createJob.mutateAsync({
          profile_id: profileId,
          cloud_account_id: file.accountId,
          definitions: {
            source: `s3://${file.bucket}/${file.path}`,
            destination: `s3://${output.bucket_name}/${output.path}`,
          },
        });
      }
      void message.success(hybrikMessages.jobCreated);
      close();
    } catch (error) {
      void message.error(hybrikMessages.jobFailed);
      setFailure(describeError(error));
    }
  };

  return (
    <Modal
      open={open}
      title="Transcode (Hybrik)"
      okText="Start"
      okButtonProps={{ disabled: !profileId || !output }}
      confirmLoading={createJob.isPending}
      onOk={() => void run()}
      onCancel={close}
      destroyOnHidden
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Text>
          {files.length === 1 ? files[0]?.name : `${files.length} files`} will be transcoded with the profile
          you choose.
        </Typography.Text>
        <Select
          aria-label="Profile"
          placeholder="Select a profile"
          style={{ width: '100%' }}
          loading={profiles.isPending}
          value={profileId ?? undefined}
          options={(profiles.data ?? []).map((profile) => ({ value: profile.id, label: profile.name }))}
          onChange={setProfileId}
          notFoundContent={
            profiles.isError ? describeError(profiles.error) : 'No profiles: upload one on /hybrik'
          }
        />
        {output ? (
          <Typography.Text type="secondary">
            Outputs go to {output.bucket_name}/{output.path}
          </Typography.Text>
        ) : settings.isSuccess ? (
          <Alert type="warning" showIcon title={hybrikMessages.settingsRequired} />
        ) : null}
        {failure ? <Alert type="error" showIcon title={failure} /> : null}
      </Space>
    </Modal>
  );
}
