import { useEffect, useState } from 'react';
import { App, Alert, Button, Card, Input, Popconfirm, Space, Table, Typography, Upload } from 'antd';
import { DeleteOutlined, UploadOutlined } from '@ant-design/icons';
import { hybrikMessages, roleMay, type HybrikProfile } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DateText } from '../../ui/DateText.tsx';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { AccountBucketSelects } from '../migration/AccountBucketSelects.tsx';
import { useProfile } from '../profile/useProfile.ts';
import {
  profileFileProblem,
  useDeleteProfile,
  useHybrikProfiles,
  useHybrikSettings,
  useSaveHybrikSettings,
  useUploadProfile,
} from './hybrik-api.ts';

const manageRefusal = 'Only an Owner or an Admin can change the output bucket or the profiles.';

/** The Settings tab (spec 001 §2): the output bucket picker, the profile list and the profile upload. */
export function HybrikSettings() {
  const { message, modal } = App.useApp();
  const role = useProfile().data?.role.title;
  const mayManage = role !== undefined && roleMay(role, 'hybrik.manage');
  const accounts = useCloudAccounts();
  const settings = useHybrikSettings();
  const profiles = useHybrikProfiles();
  const save = useSaveHybrikSettings();
  const upload = useUploadProfile();
  const remove = useDeleteProfile();

  const saved = settings.data?.hybrik_profiles_bucket ?? null;
  const [accountId, setAccountId] = useState<string | null>(null);
  const [bucket, setBucket] = useState<string | null>(null);
  const [path, setPath] = useState('');
  useEffect(() => {
    if (!saved) return;
    setAccountId(saved.cloud_account_id);
    setBucket(saved.bucket_name);
    setPath(saved.path);
  }, [saved]);

  const onSave = () => {
    if (!accountId || !bucket) return;
    save.mutate(
      { hybrik_profiles_bucket: { cloud_account_id: accountId, bucket_name: bucket, path } },
      {
        onSuccess: () => void message.success(hybrikMessages.settingsSaved),
        onError: () =>
          void modal.error({
            title: hybrikMessages.settingsFailedTitle,
            content: hybrikMessages.settingsFailedText,
          }),
      },
    );
  };

  const onUpload = (file: File) => {
    upload.mutate(file, {
      onSuccess: () => void message.success(hybrikMessages.profileUploaded),
      onError: (error) => void message.error(describeError(error)),
    });
  };

  const onDelete = (profile: HybrikProfile) =>
    remove.mutateAsync(profile.id).then(
      () => undefined,
      () => void message.error(hybrikMessages.profileDeleteFailed),
    );

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Card title="Output bucket" size="small">
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          <Typography.Text type="secondary">
            Profiles are kept in this bucket, and jobs write their outputs to it.
          </Typography.Text>
          <AccountBucketSelects
            accountLabel="Cloud account"
            bucketLabel="Bucket"
            accounts={accounts.data ?? []}
            accountId={accountId}
            bucket={bucket}
            loading={accounts.isPending}
            disabled={!mayManage}
            onAccountChange={(id) => {
              setAccountId(id);
              setBucket(null);
            }}
            onBucketChange={setBucket}
          />
          <Space wrap>
            <Input
              aria-label="Path"
              placeholder="Folder (optional), e.g. hybrik/"
              style={{ width: 260 }}
              value={path}
              disabled={!mayManage}
              onChange={(event) => setPath(event.target.value)}
            />
            <Button
              type="primary"
              disabled={!mayManage || !accountId || !bucket}
              loading={save.isPending}
              onClick={onSave}
            >
              Save
            </Button>
          </Space>
          {mayManage ? null : <Typography.Text type="secondary">{manageRefusal}</Typography.Text>}
        </Space>
      </Card>

      <Card
        title="Profiles"
        size="small"
        extra={
          <Upload
            accept=".json,application/json"
            showUploadList={false}
            disabled={!mayManage || !saved}
            beforeUpload={(file) => {
              const problem = profileFileProblem(file);
              if (problem) void message.error(problem);
              else onUpload(file);
              return Upload.LIST_IGNORE;
            }}
          >
            <Button icon={<UploadOutlined />} disabled={!mayManage || !saved} loading={upload.isPending}>
              Upload profile
            </Button>
          </Upload>
        }
      >
        {saved ? null : (
          <Alert type="info" showIcon title={hybrikMessages.settingsRequired} style={{ marginBottom: 12 }} />
        )}
        <Table<HybrikProfile>
          aria-label="Profiles"
          rowKey="id"
          size="small"
          pagination={false}
          loading={profiles.isPending}
          dataSource={profiles.data ?? []}
          locale={{ emptyText: profiles.isError ? describeError(profiles.error) : 'No profiles yet' }}
          columns={[
            { title: 'Name', dataIndex: 'name', key: 'name' },
            {
              title: 'Created',
              key: 'created',
              render: (_, profile) => <DateText value={profile.created_at} />,
            },
            {
              title: 'Actions',
              key: 'actions',
              width: 120,
              render: (_, profile) => (
                <Popconfirm
                  title={`Delete the profile ${profile.name}?`}
                  okText="Delete"
                  okButtonProps={{ danger: true }}
                  disabled={!mayManage}
                  onConfirm={() => onDelete(profile)}
                >
                  <Button
                    danger
                    size="small"
                    icon={<DeleteOutlined />}
                    disabled={!mayManage}
                    aria-label={`Delete ${profile.name}`}
                  >
                    Delete
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      </Card>
    </Space>
  );
}
