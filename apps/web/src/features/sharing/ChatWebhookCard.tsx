import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Form, Input, Popconfirm, Space, Typography } from 'antd';
import { sharingMessages, type ChatWebhookBody } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { deleteChatWebhook, saveChatWebhook, useChatWebhook } from './sharing-api.ts';

/** Owner/Admin setting: the organisation's incoming-webhook URL for chat sharing (Slack, Mattermost, Teams). */
export function ChatWebhookCard() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const webhook = useChatWebhook();
  const [form] = Form.useForm<ChatWebhookBody>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.chatWebhook });

  const save = useMutation({
    mutationFn: saveChatWebhook,
    onSuccess: async () => {
      void message.success(sharingMessages.chatWebhookSaved);
      form.resetFields();
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: deleteChatWebhook,
    onSuccess: async (text) => {
      void message.success(text);
      await refresh();
    },
    onError: (error) => void message.error(describeError(error)),
  });

  return (
    <Card title="Chat channel">
      <Space orientation="vertical" style={{ width: '100%' }}>
        {webhook.data?.configured ? (
          <Space wrap>
            <Typography.Text>
              Shares go to <strong>#{webhook.data.channel_name}</strong> through{' '}
              <Typography.Text code>{webhook.data.url_masked}</Typography.Text>
            </Typography.Text>
            <Popconfirm
              title="Remove the chat channel?"
              okText="Remove"
              onConfirm={() => remove.mutateAsync()}
            >
              <Button danger size="small">
                Remove
              </Button>
            </Popconfirm>
          </Space>
        ) : (
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            Create an incoming webhook in Slack, Mattermost or Microsoft Teams and paste its URL here to share
            files to that channel.
          </Typography.Paragraph>
        )}
        <Form<ChatWebhookBody>
          form={form}
          layout="inline"
          onFinish={(values) => save.mutate(values)}
          style={{ rowGap: 8 }}
        >
          <Form.Item
            name="channel_name"
            label="Channel"
            rules={[{ required: true, whitespace: true, message: sharingMessages.channelNameRequired }]}
          >
            <Input placeholder="media-team" style={{ width: 160 }} />
          </Form.Item>
          <Form.Item
            name="url"
            label="Webhook URL"
            rules={[
              { required: true, message: sharingMessages.webhookUrlInvalid },
              { pattern: /^https?:\/\/\S+$/i, message: sharingMessages.webhookUrlInvalid },
            ]}
          >
            <Input
              placeholder="https://hooks.slack.com/services/…"
              style={{ width: 340 }}
              autoComplete="off"
            />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {webhook.data?.configured ? 'Replace' : 'Save'}
            </Button>
          </Form.Item>
        </Form>
        {save.error && <Alert type="error" showIcon title={describeError(save.error)} />}
      </Space>
    </Card>
  );
}
