import { useState } from 'react';
import { App, Col, Form, Input, Result, Row } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { FREE_PLAN_HANDLE, billingMessages, messages } from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { billingErrorText } from './billing-api.ts';
import { CardForm } from './CardForm.tsx';
import type { CardPayload } from './card-form.ts';

interface Customer {
  first_name: string;
  last_name: string;
  email: string;
  coupon_code?: string;
}

/** POST /billing/desktop/subscriptions/new_customer: the payload of spec 001 §7 / spec 002 §3. */
function subscribeNewCustomer({ customer, card }: { customer: Customer; card: CardPayload }) {
  const coupon = customer.coupon_code?.trim();
  return api.post(
    '/billing/desktop/subscriptions/new_customer',
    {
      customer_subscription: {
        subscription: {
          // Spec 001 §7, spec 002 §9: a new card subscription is to the free plan, billed in the USA.
          product_handle: FREE_PLAN_HANDLE,
          ...(coupon ? { coupon_code: coupon } : {}),
          customer_attributes: {
            first_name: customer.first_name.trim(),
            last_name: customer.last_name.trim(),
            email: customer.email.trim(),
          },
          credit_card_attributes: card,
        },
      },
    },
    { silent: true },
  );
}

/**
 * /desktopbilling (spec 000 §2: public, signed out): the desktop agent's new customer subscribes to the free plan
 * with a card (spec 001 §7).
 */
export function DesktopBillingPage() {
  const { message } = App.useApp();
  const [done, setDone] = useState(false);
  const subscribe = useMutation({ mutationFn: subscribeNewCustomer });

  const submit = async (card: CardPayload, extra: Record<string, string | undefined>) => {
    const customer: Customer = {
      first_name: extra.first_name ?? '',
      last_name: extra.last_name ?? '',
      email: extra.email ?? '',
      coupon_code: extra.coupon_code,
    };
    try {
      await subscribe.mutateAsync({ customer, card });
      setDone(true);
    } catch (error) {
      void message.error(billingErrorText(error, billingMessages.cardFailed));
    }
  };

  return (
    <AuthCard title="Desktop Billing">
      {done ? (
        <Result status="success" title={billingMessages.subscribed} />
      ) : (
        <CardForm
          submitText="Subscribe"
          submitting={subscribe.isPending}
          onSubmit={submit}
          before={
            <>
              <Row gutter={16}>
                <Col span={12}>
                  <Form.Item
                    label="First Name"
                    name="first_name"
                    rules={[{ required: true, whitespace: true, message: billingMessages.cardName }]}
                  >
                    <Input autoComplete="given-name" />
                  </Form.Item>
                </Col>
                <Col span={12}>
                  <Form.Item label="Last Name" name="last_name">
                    <Input autoComplete="family-name" />
                  </Form.Item>
                </Col>
              </Row>
              <Form.Item
                label="Email"
                name="email"
                rules={[{ required: true, type: 'email', message: messages.emailInvalid }]}
              >
                <Input autoComplete="email" />
              </Form.Item>
              <Form.Item label="Coupon Code" name="coupon_code">
                <Input />
              </Form.Item>
            </>
          }
        />
      )}
    </AuthCard>
  );
}
