import { Alert, App, Button, Card, Flex, Form, Input, Typography } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { messages, type UserProfile } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { updateProfile } from './profile-api.ts';
import { useProfile } from './useProfile.ts';

interface NameValues {
  first_name: string;
  last_name: string;
}

/** /profile/edit — first and last name required; email and company read-only (spec 002 §2, §5). */
export function EditProfilePage() {
  useDocumentTitle('Edit profile');
  const { data: profile, error, isPending } = useProfile();
  if (isPending) return <PageSpinner />;
  if (!profile) return <Alert type="error" showIcon title={describeError(error)} />;
  return <EditProfileForm profile={profile} />;
}

function EditProfileForm({ profile }: { profile: UserProfile }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (values: NameValues) =>
      updateProfile({ first_name: values.first_name.trim(), last_name: values.last_name.trim() }),
    onSuccess: async () => {
      void message.success(messages.profileSaved);
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      navigate('/profile');
    },
    onError: (saveError) => void message.error(describeError(saveError)),
  });
  return (
    <Card style={{ maxWidth: 560 }}>
      <Typography.Title level={2} style={{ marginTop: 0 }}>
        Edit profile
      </Typography.Title>
      <Form<NameValues>
        name="edit-profile"
        layout="vertical"
        initialValues={{ first_name: profile.first_name, last_name: profile.last_name }}
        onFinish={(values) => save.mutate(values)}
      >
        <Form.Item
          label="First Name"
          name="first_name"
          rules={[{ required: true, whitespace: true, message: messages.firstNameRequired }]}
        >
          <Input autoComplete="given-name" />
        </Form.Item>
        <Form.Item
          label="Last Name"
          name="last_name"
          rules={[{ required: true, whitespace: true, message: messages.lastNameRequired }]}
        >
          <Input autoComplete="family-name" />
        </Form.Item>
        <Form.Item label="Email" htmlFor="edit-profile-email">
          <Input id="edit-profile-email" value={profile.email} readOnly disabled />
        </Form.Item>
        <Form.Item label="Company" htmlFor="edit-profile-company">
          <Input id="edit-profile-company" value={profile.company ?? ''} readOnly disabled />
        </Form.Item>
        <Flex gap={16} align="center">
          <Button type="primary" htmlType="submit" loading={save.isPending}>
            Save
          </Button>
          <Link to="/profile">Cancel</Link>
        </Flex>
      </Form>
    </Card>
  );
}
