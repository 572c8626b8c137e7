import type { ReactNode } from 'react';
import { App, Button, Col, Form, Input, Row, Space } from 'antd';
import { billingMessages } from '@cumulo/contract';
import {
  cardCvcError,
  cardExpiryError,
  cardNameError,
  cardNumberError,
  cardPayload,
  type CardFormValues,
  type CardPayload,
} from './card-form.ts';

type FormValues = CardFormValues & Record<string, string | undefined>;

interface CardFormProps {
  /** Called with a valid card; `extra` holds the values of the fields passed in `before`. */
  onSubmit(card: CardPayload, extra: Record<string, string | undefined>): unknown;
  submitText?: string;
  submitting?: boolean;
  /** The optional billing address (the /billing/addcreditcard page shows it; modals keep the card alone). */
  withAddress?: boolean;
  /** Fields drawn above the card inside the same form (the desktop page's customer name, e-mail and coupon). */
  before?: ReactNode;
  onCancel?(): void;
}

const CARD_FIELDS = new Set<string>([
  'number',
  'name',
  'expiry',
  'cvc',
  'billing_address',
  'billing_city',
  'billing_state',
  'billing_zip',
  'billing_country',
]);

const rule = (check: (value: string) => string | null) => ({
  validator: async (_: unknown, value: unknown) => {
    const problem = check(typeof value === 'string' ? value : '');
    if (problem) throw new Error(problem);
  },
});

/**
 * The one card form (spec 001 §5 "Billing form", spec 002 §5): every card entry point — /billing/addcreditcard,
 * the subscription modal, the charge and Wasabi confirmations, the quota modal and /desktopbilling — uses it.
 * Each field says its own rule; a submit with a failing field also says 'Please fill required fields'.
 */
export function CardForm({
  onSubmit,
  submitText = 'Add Card',
  submitting = false,
  withAddress = false,
  before,
  onCancel,
}: CardFormProps) {
  const { message } = App.useApp();
  const [form] = Form.useForm<FormValues>();

  const onFinish = async (values: FormValues) => {
    const card = cardPayload(values);
    if (!card) {
      void message.error(billingMessages.fillRequired);
      return;
    }
    const extra: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(values)) if (!CARD_FIELDS.has(key)) extra[key] = value;
    await onSubmit(card, extra);
  };

  return (
    <Form
      form={form}
      layout="vertical"
      requiredMark={false}
      onFinish={(values) => void onFinish(values)}
      onFinishFailed={() => void message.error(billingMessages.fillRequired)}
    >
      {before}
      <Form.Item label="Card Number" name="number" rules={[rule(cardNumberError)]}>
        <Input autoComplete="cc-number" inputMode="numeric" placeholder="1234 1234 1234 1234" />
      </Form.Item>
      <Form.Item label="Name on Card" name="name" rules={[rule(cardNameError)]}>
        <Input autoComplete="cc-name" />
      </Form.Item>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item label="Expiry" name="expiry" rules={[rule((value) => cardExpiryError(value))]}>
            <Input autoComplete="cc-exp" placeholder="MM / YY" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item
            label="CVC"
            name="cvc"
            dependencies={['number']}
            rules={[
              ({ getFieldValue }) =>
                rule((value) => {
                  const number: unknown = getFieldValue('number');
                  return cardCvcError(value, typeof number === 'string' ? number : '');
                }),
            ]}
          >
            <Input autoComplete="cc-csc" inputMode="numeric" />
          </Form.Item>
        </Col>
      </Row>
      {withAddress && (
        <>
          <Form.Item label="Billing Address" name="billing_address">
            <Input autoComplete="street-address" />
          </Form.Item>
          <Row gutter={16}>
            <Col span={12}>
              <Form.Item label="City" name="billing_city">
                <Input autoComplete="address-level2" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label="State" name="billing_state">
                <Input autoComplete="address-level1" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label="ZIP" name="billing_zip">
                <Input autoComplete="postal-code" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label="Country" name="billing_country">
                <Input autoComplete="country-name" />
              </Form.Item>
            </Col>
          </Row>
        </>
      )}
      <Space>
        {onCancel && <Button onClick={onCancel}>Cancel</Button>}
        <Button type="primary" htmlType="submit" loading={submitting}>
          {submitText}
        </Button>
      </Space>
    </Form>
  );
}
