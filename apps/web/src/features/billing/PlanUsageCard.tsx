import { useState } from 'react';
import { App, Button, Card, Flex, Form, Input, Modal, Space, Typography } from 'antd';
import {
  QUOTA_KEYS,
  QUOTA_UNLIMITED,
  billingMessages,
  formatBytes,
  type QuotaKey,
  type UserProfile,
} from '@cumulo/contract';
import { billingErrorText, isOwner, planTitle, useBillingInfo, useRequestExtension } from './billing-api.ts';
import { UsageBar } from './UsageBar.tsx';

/** What each quota of spec 002 §3 measures, in the words of the screens that use it. */
export const QUOTA_LABELS: Record<QuotaKey, string> = {
  fc: 'FileCatalyst transfers',
  encoding: 'Encoding',
  s3_native: 'Direct uploads',
  wasabi: 'Wasabi uploads',
  s3_acceleration: 'Accelerated uploads',
  c2c: 'Cloud to cloud transfers',
};

/**
 * The profile's plan usage card (spec 002 §2 Settings, §6, §9): the plan, then each quota's used of total with
 * its bar. Members other than the Owner may ask for more ('Request limit extension').
 */
export function PlanUsageCard({ profile }: { profile: UserProfile }) {
  const info = useBillingInfo();
  const [asking, setAsking] = useState(false);
  const planName = planTitle(info.data?.plan, profile.in_trial);
  const quotas = QUOTA_KEYS.flatMap((key) => {
    const usage = profile.quota[key];
    return usage ? [{ key, usage }] : [];
  });
  return (
    <Card
      title="Plan usage"
      extra={
        isOwner(profile) ? null : <Button onClick={() => setAsking(true)}>Request limit extension</Button>
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        {planName && (
          <Typography.Text>
            Plan: <strong>{planName}</strong>
          </Typography.Text>
        )}
        {quotas.map(({ key, usage }) => (
          <div key={key} role="group" aria-label={QUOTA_LABELS[key]}>
            <Flex justify="space-between">
              <Typography.Text>{QUOTA_LABELS[key]}</Typography.Text>
              <Typography.Text type="secondary">
                {usage.total === QUOTA_UNLIMITED
                  ? `${formatBytes(usage.used)} of Unlimited`
                  : `${formatBytes(usage.used)} of ${formatBytes(usage.total)}`}
              </Typography.Text>
            </Flex>
            {usage.total !== QUOTA_UNLIMITED && (
              <UsageBar used={usage.used} total={usage.total} label={QUOTA_LABELS[key]} />
            )}
          </div>
        ))}
      </Space>
      <ExtensionRequestModal open={asking} onClose={() => setAsking(false)} />
    </Card>
  );
}

function ExtensionRequestModal({ open, onClose }: { open: boolean; onClose(): void }) {
  const { message } = App.useApp();
  const request = useRequestExtension();
  const [form] = Form.useForm<{ message: string }>();
  const send = async ({ message: text }: { message: string }) => {
    try {
      await request.mutateAsync({ message: text });
      void message.success(billingMessages.requestSent);
      onClose();
    } catch (error) {
      void message.error(billingErrorText(error, billingMessages.requestFailed));
    }
  };
  return (
    <Modal
      open={open}
      title="Request limit extension"
      okText="Send Request"
      okButtonProps={{ loading: request.isPending }}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(values) => void send(values)}>
        <Form.Item
          label="Message"
          name="message"
          rules={[{ required: true, whitespace: true, message: billingMessages.enterMessage }]}
        >
          <Input.TextArea rows={4} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
