import { useState } from 'react';
import { Alert, App, Button, Card, Modal, Popconfirm, Space, Switch, Table, Typography } from 'antd';
import { apiKeyMessages, type ApiKeyView, type CreatedApiKey } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useApiKeys, useCreateApiKey, useDeleteApiKey, useSetApiKeyActive } from './api-keys-api.ts';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** The curl line a script uses to list the buckets of a cloud account with a key (HTTP Basic). */
function curlExample(accessKey: string, secretKey: string) {
  return `curl -u '${accessKey}:${secretKey}' -H 'content-type: application/json' -d '{"id":"<cloud account id>"}' ${window.location.origin}/api/cloudaccount/list_buckets`;
}

function CopyButton({ label, value }: { label: string; value: string }) {
  const { message } = App.useApp();
  return (
    <Button
      size="small"
      onClick={() =>
        void navigator.clipboard.writeText(value).then(
          () => void message.success(`${label} copied.`),
          () => void message.error(`Could not copy the ${label.toLowerCase()}.`),
        )
      }
    >
      {`Copy ${label.toLowerCase()}`}
    </Button>
  );
}

/** The one view of a new key's secret: closing it drops the secret from memory for good. */
function NewKeyModal({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  return (
    <Modal
      open={created !== null}
      title="Your new access key"
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          I have saved the secret key
        </Button>
      }
      destroyOnHidden
    >
      {created && (
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Alert type="warning" showIcon title={apiKeyMessages.shownOnce} />
          <Typography.Text strong>Access key</Typography.Text>
          <Space>
            <Typography.Text code aria-label="New access key">
              {created.access_key}
            </Typography.Text>
            <CopyButton label="Access key" value={created.access_key} />
          </Space>
          <Typography.Text strong>Secret key</Typography.Text>
          <Space>
            <Typography.Text code aria-label="New secret key">
              {created.secret_key}
            </Typography.Text>
            <CopyButton label="Secret key" value={created.secret_key} />
          </Space>
          <Typography.Text strong>List the buckets of a cloud account</Typography.Text>
          <Typography.Paragraph code>
            {curlExample(created.access_key, created.secret_key)}
          </Typography.Paragraph>
        </Space>
      )}
    </Modal>
  );
}

/**
 * Access keys (spec 002 §2 "Access keys page", /security-credentials): the member's own API keys. A key's secret
 * is shown once, in the modal after "Create Key"; the table never has it.
 */
export function AccessKeysPage() {
  useDocumentTitle('Access Keys');
  const { message } = App.useApp();
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const remove = useDeleteApiKey();
  const setActive = useSetApiKeyActive();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const createKey = async () => {
    try {
      setCreated(await create.mutateAsync());
    } catch (error) {
      void message.error(describeError(error));
    }
  };
  const deleteKey = async (key: ApiKeyView) => {
    try {
      void message.success((await remove.mutateAsync(key.id)).message);
    } catch (error) {
      void message.error(describeError(error));
    }
  };
  const toggle = async (key: ApiKeyView, active: boolean) => {
    try {
      await setActive.mutateAsync({ id: key.id, active });
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  return (
    <Card
      title="Access Keys"
      extra={
        <Button type="primary" loading={create.isPending} onClick={() => void createKey()}>
          Create Key
        </Button>
      }
    >
      <Typography.Paragraph>
        An access key lets a script call the Cumulo API as you, with your role, without your password. Send it
        as HTTP Basic: the access key as user name, the secret key as password. Keys cannot create or delete
        keys, nor change your password or MFA. The API is described at <a href="/api/docs">/api/docs</a>.
      </Typography.Paragraph>
      <Typography.Paragraph code>{curlExample('<access key>', '<secret key>')}</Typography.Paragraph>
      {keys.error ? (
        <Alert type="error" showIcon title={describeError(keys.error)} />
      ) : (
        <Table<ApiKeyView>
          rowKey="id"
          loading={keys.isPending}
          dataSource={keys.data ?? []}
          pagination={false}
          locale={{ emptyText: 'No access keys yet.' }}
          columns={[
            { title: 'Access key', dataIndex: 'access_key', render: (value: string) => <code>{value}</code> },
            { title: 'Created', dataIndex: 'created_date', render: (value: string) => when(value) },
            { title: 'Last used', dataIndex: 'last_used', render: (value: string | null) => when(value) },
            {
              title: 'Active',
              dataIndex: 'active',
              render: (active: boolean, key) => (
                <Switch
                  checked={active}
                  aria-label={`Active ${key.access_key}`}
                  onChange={(checked) => void toggle(key, checked)}
                />
              ),
            },
            {
              title: '',
              key: 'delete',
              render: (_, key) => (
                <Popconfirm
                  title="Delete this key?"
                  description="Scripts using it stop working at once."
                  okText="Delete"
                  onConfirm={() => deleteKey(key)}
                >
                  <Button type="link" danger aria-label={`Delete ${key.access_key}`}>
                    Delete
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      )}
      <NewKeyModal created={created} onClose={() => setCreated(null)} />
    </Card>
  );
}
