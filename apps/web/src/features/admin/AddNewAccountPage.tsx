import { useState } from 'react';
import { Alert, App, Button, Flex, Form, Input, Typography } from 'antd';
import { useNavigate } from 'react-router';
import {
  ACCOUNT_DESCRIPTION_MAX,
  NAME_MAX_LENGTH,
  adminMessages,
  type CreateAccountBody,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCreateAccount } from './admin-api.ts';
import { showFieldErrors } from './admin-ui.tsx';

const FIELDS = ['account_name', 'description'] as const;

/** /addNewAccount — a new organisation, with no member yet (spec 002 §2: Account Name, Description). */
export function AddNewAccountPage() {
  useDocumentTitle('Add New Account');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<CreateAccountBody>();
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateAccount();

  const submit = (values: CreateAccountBody) => {
    setProblem(null);
    create.mutate(
      { account_name: values.account_name, description: values.description || null },
      {
        onSuccess: () => {
          void message.success(adminMessages.accountCreated);
          navigate('/admindaccount');
        },
        onError: (error) => {
          if (!showFieldErrors(form, error, FIELDS)) setProblem(describeError(error));
        },
      },
    );
  };

  return (
    <Flex vertical gap={16} style={{ maxWidth: 560 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Add New Account
      </Typography.Title>
      <Form<CreateAccountBody> form={form} name="add-new-account" layout="vertical" onFinish={submit}>
        <Form.Item
          name="account_name"
          label="Account Name"
          rules={[{ required: true, whitespace: true, message: adminMessages.accountNameRequired }]}
        >
          <Input maxLength={NAME_MAX_LENGTH} />
        </Form.Item>
        <Form.Item name="description" label="Description">
          <Input.TextArea rows={4} maxLength={ACCOUNT_DESCRIPTION_MAX} />
        </Form.Item>
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" loading={create.isPending}>
          Add New Account
        </Button>
      </Form>
    </Flex>
  );
}
