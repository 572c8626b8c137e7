import { useState } from 'react';
import { Alert, App, Button, Flex, Form, Input, Select, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, adminMessages, type InviteAdminUserBody } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useAccountOptions, useInviteAdminUser } from './admin-api.ts';
import { showFieldErrors } from './admin-ui.tsx';

const FIELDS = ['first_name', 'last_name', 'email', 'organization_id'] as const;

/**
 * /addNewUser — a real invitation into the chosen organisation (spec 002 §2, §5: Select Account required); the
 * invitee becomes its Owner when it has none yet.
 */
export function AddNewUserPage() {
  useDocumentTitle('Add New User');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<InviteAdminUserBody>();
  const [problem, setProblem] = useState<string | null>(null);
  const options = useAccountOptions();
  const invite = useInviteAdminUser();

  const submit = (values: InviteAdminUserBody) => {
    setProblem(null);
    invite.mutate(values, {
      onSuccess: () => {
        void message.success(adminMessages.userInvited(values.email.trim().toLowerCase()));
        navigate('/userList');
      },
      onError: (error) => {
        if (!showFieldErrors(form, error, FIELDS)) setProblem(describeError(error));
      },
    });
  };

  return (
    <Flex vertical gap={16} style={{ maxWidth: 560 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Add New User
      </Typography.Title>
      <Form<InviteAdminUserBody> form={form} name="add-new-user" layout="vertical" onFinish={submit}>
        <Form.Item
          name="first_name"
          label="First Name"
          rules={[{ required: true, whitespace: true, message: adminMessages.firstNameRequired }]}
        >
          <Input maxLength={NAME_MAX_LENGTH} />
        </Form.Item>
        <Form.Item
          name="last_name"
          label="Last Name"
          rules={[{ required: true, whitespace: true, message: adminMessages.lastNameRequired }]}
        >
          <Input maxLength={NAME_MAX_LENGTH} />
        </Form.Item>
        <Form.Item
          name="email"
          label="Email"
          rules={[{ required: true, whitespace: true, message: adminMessages.emailRequired }]}
        >
          <Input type="email" maxLength={EMAIL_MAX_LENGTH} />
        </Form.Item>
        <Form.Item
          name="organization_id"
          label="Select Account"
          rules={[{ required: true, message: adminMessages.selectAccount }]}
        >
          <Select
            showSearch
            optionFilterProp="label"
            placeholder="Select Account"
            loading={options.isPending}
            options={(options.data ?? []).map((account) => ({ value: account.id, label: account.name }))}
          />
        </Form.Item>
        {options.error && <Alert type="error" showIcon title={describeError(options.error)} />}
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" loading={invite.isPending}>
          Invite User
        </Button>
      </Form>
    </Flex>
  );
}
