import { useState } from 'react';
import { Button, Checkbox, Flex, Form, Input, Table, Typography } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { BUCKET_PERMISSIONS } from '@cumulo/contract';
import { NO_PERMISSIONS, bucketUserErrors, type BucketUser } from './bucket-request.ts';

/** Step 2, Manage Users: grant users (canonical ID or e-mail) ACL permissions on the new bucket. */
export function BucketUsersStep({
  users,
  onSave,
  onRemove,
}: {
  users: readonly BucketUser[];
  onSave: (entry: BucketUser) => void;
  onRemove: (user: string) => void;
}) {
  const [draft, setDraft] = useState<BucketUser>({ user: '', permissions: NO_PERMISSIONS });
  const [attempted, setAttempted] = useState(false);
  const errors = bucketUserErrors(draft);
  const shownUserError = attempted ? errors.user : null;
  const shownPermissionError = attempted ? errors.permissions : null;

  const save = () => {
    setAttempted(true);
    if (errors.user || errors.permissions) return;
    onSave(draft);
    setDraft({ user: '', permissions: NO_PERMISSIONS });
    setAttempted(false);
  };

  return (
    <>
      <Typography.Paragraph type="secondary">
        Give other AWS users access to the bucket by their canonical user ID or the e-mail address of their
        account. This step is optional.
      </Typography.Paragraph>
      <Form layout="vertical" component="div" style={{ maxWidth: 560 }}>
        <Form.Item
          label="User ID or e-mail"
          htmlFor="bucket-user"
          validateStatus={shownUserError ? 'error' : undefined}
          help={shownUserError}
        >
          <Input
            id="bucket-user"
            value={draft.user}
            onChange={(event) => setDraft({ ...draft, user: event.target.value })}
            onPressEnter={save}
          />
        </Form.Item>
        <Form.Item
          label="Permissions"
          validateStatus={shownPermissionError ? 'error' : undefined}
          help={shownPermissionError}
        >
          <Flex wrap gap={16}>
            {BUCKET_PERMISSIONS.map((permission) => (
              <Checkbox
                key={permission}
                checked={draft.permissions[permission]}
                onChange={(event) =>
                  setDraft({
                    ...draft,
                    permissions: { ...draft.permissions, [permission]: event.target.checked },
                  })
                }
              >
                {permission}
              </Checkbox>
            ))}
          </Flex>
        </Form.Item>
        <Button onClick={save}>Save User</Button>
      </Form>
      <Table<BucketUser>
        style={{ marginTop: 24 }}
        size="small"
        rowKey="user"
        pagination={false}
        dataSource={[...users]}
        locale={{ emptyText: 'No users added yet.' }}
        columns={[
          { title: 'User', dataIndex: 'user' },
          {
            title: 'Permissions',
            key: 'permissions',
            render: (_, entry) => BUCKET_PERMISSIONS.filter((p) => entry.permissions[p]).join(', '),
          },
          {
            title: '',
            key: 'remove',
            width: 60,
            render: (_, entry) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                aria-label={`Remove ${entry.user}`}
                onClick={() => onRemove(entry.user)}
              />
            ),
          },
        ]}
      />
    </>
  );
}
