import { Alert, Button, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { accountFormMessages, type CloudAccountView } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { createWasabiAccount, type WasabiSubAccountValues } from './providers-api.ts';

interface WasabiCreateFormProps {
  wasabiCreate: { enabled: boolean; message: string };
  onCreated: (account: CloudAccountView, name: string) => void;
  onError: (message: string) => void;
}

/** The Wasabi 'create' tab: registers a new Wasabi account through the partner API and connects it. */
export function WasabiCreateForm({ wasabiCreate, onCreated, onError }: WasabiCreateFormProps) {
  const create = useMutation({
    mutationFn: (values: WasabiSubAccountValues) =>
      createWasabiAccount({
        acct_name: values.acct_name.trim(),
        password: values.password,
        project_name: values.project_name.trim(),
      }),
    onSuccess: (account, values) => onCreated(account, values.project_name.trim()),
    onError: (error) => onError(describeError(error)),
  });

  if (!wasabiCreate.enabled) {
    return (
      <Alert
        type="info"
        showIcon
        title="Creating a new Wasabi account is not available"
        description={wasabiCreate.message}
      />
    );
  }
  return (
    <Form<WasabiSubAccountValues>
      name="wasabi-create"
      layout="vertical"
      style={{ maxWidth: 560 }}
      onFinish={(values) => create.mutate(values)}
    >
      <Form.Item
        label="Name"
        name="project_name"
        rules={[{ required: true, whitespace: true, message: accountFormMessages.name }]}
      >
        <Input placeholder="e.g. Wasabi archive" />
      </Form.Item>
      <Form.Item
        label="Wasabi account e-mail"
        name="acct_name"
        rules={[
          { required: true, whitespace: true, message: accountFormMessages.field },
          { type: 'email', message: 'Enter the e-mail address of the new Wasabi account.' },
        ]}
      >
        <Input autoComplete="off" />
      </Form.Item>
      <Form.Item
        label="Password"
        name="password"
        rules={[
          { required: true, message: accountFormMessages.field },
          { min: 8, message: 'The password needs at least 8 characters.' },
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={create.isPending}>
        Create Account
      </Button>
    </Form>
  );
}
