import { useState } from 'react';
import { Alert, App, Button, Card, Col, Form, Input, Modal, Row, Space, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { billingMessages, formatUsd } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import {
  billingErrorText,
  isOwner,
  useBillingInfo,
  useChangePlan,
  useProducts,
  useRequestQuote,
  useSubscribe,
} from './billing-api.ts';

type Plan = NonNullable<ReturnType<typeof useProducts>['data']>[number];

/**
 * /plan (spec 002 §3 "Plan", §4 plan change): the plans in order, the current one marked. Upgrades only: a lower
 * plan shows the contact-support text, a plan without a handle opens a quote request.
 */
export function PlanPage() {
  useDocumentTitle('Plans');
  const { message } = App.useApp();
  const profile = useProfile().data;
  const plans = useProducts();
  const info = useBillingInfo();
  const subscribe = useSubscribe();
  const changePlan = useChangePlan();
  const [quoteFor, setQuoteFor] = useState<Plan | null>(null);
  const owner = isOwner(profile);

  if (plans.isPending || info.isPending) return <PageSpinner />;
  if (plans.error || info.error) {
    return <Alert type="error" showIcon title={describeError(plans.error ?? info.error)} />;
  }
  const current = plans.data.find((plan) => plan.current);
  const subscriptionId = info.data.subscription_id;

  const choose = async (plan: Plan) => {
    if (!plan.handle) return;
    try {
      if (subscriptionId) await changePlan.mutateAsync({ subscriptionId, handle: plan.handle });
      else await subscribe.mutateAsync({ product_handle: plan.handle, period: 'monthly' });
      void message.success(billingMessages.subscribedTo(plan.title));
    } catch (error) {
      void message.error(billingErrorText(error, describeError(error)));
    }
  };

  const action = (plan: Plan) => {
    if (plan.current) return <Tag color="blue">Current plan</Tag>;
    if (current && plan.order < current.order) {
      return <Typography.Text type="secondary">{billingMessages.downgrade}</Typography.Text>;
    }
    if (!owner) return <Typography.Text type="secondary">{billingMessages.ownerOnly}</Typography.Text>;
    if (!plan.handle) return <Button onClick={() => setQuoteFor(plan)}>{plan.action_text}</Button>;
    // A plan is paid by the card on file: without one the Owner adds it first.
    if (!profile?.has_billing_info) {
      return (
        <Link to="/billing/addcreditcard">
          <Button>{billingMessages.noCardForSubscription}</Button>
        </Link>
      );
    }
    return (
      <Button
        type="primary"
        loading={subscribe.isPending || changePlan.isPending}
        onClick={() => void choose(plan)}
      >
        {plan.action_text}
      </Button>
    );
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Plans
      </Typography.Title>
      <Row gutter={[16, 16]}>
        {[...plans.data]
          .sort((a, b) => a.order - b.order)
          .map((plan) => (
            <Col key={plan.title} xs={24} md={8}>
              <Card
                title={plan.title}
                role="region"
                aria-label={plan.title}
                extra={plan.current ? <Tag color="blue">Current</Tag> : null}
                actions={[<span key="action">{action(plan)}</span>]}
              >
                <Typography.Title level={3} style={{ marginTop: 0 }}>
                  {plan.handle ? `${formatUsd(plan.subscription_fee_monthly, 0)} / month` : 'Custom'}
                </Typography.Title>
                <Typography.Text type="secondary">{plan.sub_title}</Typography.Text>
                <Typography.Paragraph strong style={{ margin: '12px 0 4px' }}>
                  {plan.pre_description}
                </Typography.Paragraph>
                <ul style={{ paddingInlineStart: 18, margin: 0 }}>
                  {plan.description.split('\n').map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              </Card>
            </Col>
          ))}
      </Row>
      <QuoteRequestModal plan={quoteFor} onClose={() => setQuoteFor(null)} />
    </Space>
  );
}

function QuoteRequestModal({ plan, onClose }: { plan: Plan | null; onClose(): void }) {
  const { message } = App.useApp();
  const requestQuote = useRequestQuote();
  const [form] = Form.useForm<{ message: string }>();

  const send = async ({ message: text }: { message: string }) => {
    try {
      await requestQuote.mutateAsync({ message: text, ...(plan ? { package_id: plan.title } : {}) });
      void message.success(billingMessages.messageSent);
      onClose();
    } catch (error) {
      void message.error(billingErrorText(error, describeError(error)));
    }
  };

  return (
    <Modal
      open={plan !== null}
      title={plan ? `${plan.title}: ${plan.action_text}` : ''}
      onCancel={onClose}
      okText="Send"
      okButtonProps={{ loading: requestQuote.isPending }}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      <Typography.Paragraph>{billingMessages.quoteNeeded}</Typography.Paragraph>
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
