import { useState } from 'react';
import { Button, Flex, Form, InputNumber, Select, Typography } from 'antd';
import {
  PERMISSION_UNITS,
  accessMessages,
  fromPermissionValue,
  toPermissionValue,
  type PermissionUnit,
} from '@cumulo/contract';

const UNIT_OPTIONS = [...Object.keys(PERMISSION_UNITS), 'Unlimited'].map((unit) => ({
  value: unit,
  label: unit,
}));

interface PermissionValueInputProps {
  /** The permission's title ('Maximum transfer size'): the field's label and its required text. */
  title: string;
  value: number;
  disabled: boolean;
  onSave: (value: number) => Promise<unknown>;
}

interface Values {
  amount: number | null;
  unit: PermissionUnit;
}

/**
 * A permission value (spec 002 §5): an amount in a unit, or 'Unlimited' (sent as -1); the amount is required
 * ('Please input your {attribute}') unless the unit is 'Unlimited'.
 */
export function PermissionValueInput({ title, value, disabled, onSave }: PermissionValueInputProps) {
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const unit = Form.useWatch('unit', form);
  const initial = fromPermissionValue(value);
  const save = async ({ amount, unit: chosen }: Values) => {
    setSaving(true);
    // A refusal is said by the caller (its mutation's onError); the form stays as typed.
    await onSave(toPermissionValue(amount ?? 0, chosen)).catch(() => undefined);
    setSaving(false);
  };
  return (
    <Form
      form={form}
      layout="inline"
      initialValues={initial}
      onFinish={(values) => void save(values)}
      disabled={disabled}
      aria-label={title}
    >
      <Typography.Text style={{ marginInlineEnd: 8, lineHeight: '32px' }}>{title}</Typography.Text>
      <Flex gap={8} wrap>
        <Form.Item
          name="amount"
          rules={[{ required: unit !== 'Unlimited', message: accessMessages.required(title) }]}
          style={{ marginInlineEnd: 0 }}
        >
          <InputNumber aria-label={title} min={0} disabled={disabled || unit === 'Unlimited'} />
        </Form.Item>
        <Form.Item name="unit" style={{ marginInlineEnd: 0 }}>
          <Select aria-label={`${title} unit`} options={UNIT_OPTIONS} style={{ width: 120 }} />
        </Form.Item>
        <Button htmlType="submit" loading={saving}>
          Save
        </Button>
      </Flex>
    </Form>
  );
}
