import { useState } from 'react';
import { App, Form, Input, Modal } from 'antd';
import { normalizeFolderPath, objectMessages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useCreateFolder } from './browser-api.ts';

interface CreateFolderModalProps {
  open: boolean;
  accountId: string;
  bucket: string;
  /** The folder the new one goes into: '' or 'a/b/'. */
  parentPath: string;
  onClose(): void;
  onCreated(): void;
}

/** Create folder (spec 001 §2); the name loses leading slashes and doubled slashes (§5) here and on the server. */
export function CreateFolderModal({
  open,
  accountId,
  bucket,
  parentPath,
  onClose,
  onCreated,
}: CreateFolderModalProps) {
  const { message } = App.useApp();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useCreateFolder();

  const close = () => {
    setName('');
    setError(null);
    onClose();
  };

  const submit = () => {
    const folder = normalizeFolderPath(name);
    if (!folder) {
      setError(objectMessages.folderNameRequired);
      return;
    }
    create.mutate(
      { accountId, bucket, path: `${parentPath}${folder}` },
      {
        onSuccess: (answer) => {
          void message.success(answer.message);
          onCreated();
          close();
        },
        onError: (failure) => setError(describeError(failure)),
      },
    );
  };

  return (
    <Modal
      open={open}
      title="Create folder"
      okText="Create"
      onOk={submit}
      onCancel={close}
      confirmLoading={create.isPending}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={submit}>
        <Form.Item
          label="Folder name"
          htmlFor="browser-folder-name"
          validateStatus={error ? 'error' : undefined}
          help={error ?? `Created in /${parentPath}`}
        >
          <Input
            id="browser-folder-name"
            autoFocus
            value={name}
            maxLength={1024}
            onChange={(event) => {
              setName(event.target.value);
              setError(null);
            }}
            onPressEnter={submit}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
