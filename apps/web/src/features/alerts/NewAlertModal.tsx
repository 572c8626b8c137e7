import { useState } from 'react';
import { Alert, App, Button, Flex, Form, Input, InputNumber, Modal, Radio, Select } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ALERT_SIZE_UNITS,
  ALERT_TYPES,
  alertMessages,
  alertSizeBytes,
  formatBytes,
  formatUsd,
  type AlertSizeUnit,
  type AlertType,
  type CloudAccountView,
  type CreateAlertBody,
} from '@cumulo/contract';
import { ApiError, describeError, fieldMessages } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { createAlert } from './alerts-api.ts';
import { costTitle, watchedUsage } from './watched-usage.ts';

/** The bucket select's value for an alert on the whole account (bucket_name null). */
const WHOLE_ACCOUNT = '';

interface AlertFormValues {
  type: AlertType;
  sizeLimit?: number | null;
  sizeUnit: AlertSizeUnit;
  costLimit?: number | null;
  bucket: string;
}

const INITIAL_VALUES: AlertFormValues = { type: 'SIZE', sizeUnit: 'GB', bucket: WHOLE_ACCOUNT };

const positive = (message: string) => ({
  validator: (_: unknown, value: number | null | undefined) =>
    value == null || value > 0 ? Promise.resolve() : Promise.reject(new Error(message)),
});

/** The POST /notifications/ body: exactly one limit, the other null (spec 000 §5, §7). */
function alertBody(accountId: string, fixedBucket: string | null, values: AlertFormValues): CreateAlertBody {
  return {
    cloud_account_id: accountId,
    bucket_name: fixedBucket ?? (values.bucket === WHOLE_ACCOUNT ? null : values.bucket),
    size_limit:
      values.type === 'SIZE' && values.sizeLimit != null
        ? alertSizeBytes(values.sizeLimit, values.sizeUnit)
        : null,
    cost_limit: values.type === 'COST' && values.costLimit != null ? values.costLimit : null,
  };
}

interface NewAlertModalProps {
  open: boolean;
  onClose: () => void;
  account: CloudAccountView;
  /** The bucket of the route: the alert is set on it and the choice is locked. */
  bucketName: string | null;
}

/** Modal 'Set new alert': a SIZE limit (MB, GB, TB) or a COST limit in USD, on a bucket or the account. */
export function NewAlertModal({ open, onClose, account, bucketName }: NewAlertModalProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<AlertFormValues>();
  const [failure, setFailure] = useState<string[] | null>(null);
  const type = Form.useWatch('type', form) ?? INITIAL_VALUES.type;
  const chosenBucket = Form.useWatch('bucket', form) ?? WHOLE_ACCOUNT;
  const scope = bucketName ?? (chosenBucket === WHOLE_ACCOUNT ? null : chosenBucket);
  const usage = watchedUsage(account, scope);

  const save = useMutation({
    mutationFn: createAlert,
    onSuccess: async () => {
      void message.success(alertMessages.created);
      close();
      await queryClient.invalidateQueries({ queryKey: queryKeys.accountAlerts(account.id) });
    },
    onError: (error) =>
      setFailure(
        error instanceof ApiError && error.status === 400
          ? fieldMessages(error.body)
          : [describeError(error)],
      ),
  });

  function close() {
    form.resetFields();
    setFailure(null);
    save.reset();
    onClose();
  }

  return (
    <Modal title="Set new alert" open={open} onCancel={close} footer={null} destroyOnHidden>
      <Form<AlertFormValues>
        form={form}
        name="new-alert"
        layout="vertical"
        initialValues={INITIAL_VALUES}
        onValuesChange={() => setFailure(null)}
        onFinish={(values) => save.mutate(alertBody(account.id, bucketName, values))}
      >
        <Form.Item label="Type" name="type">
          <Radio.Group
            optionType="button"
            buttonStyle="solid"
            options={ALERT_TYPES.map((value) => ({ value, label: value }))}
          />
        </Form.Item>

        {type === 'SIZE' ? (
          <Form.Item
            label="Size limit"
            htmlFor="new-alert-size-limit"
            required
            extra={usage ? `Currently ${formatBytes(usage.size)}` : undefined}
          >
            <Flex gap={8} align="center">
              <Form.Item
                name="sizeLimit"
                noStyle
                rules={[
                  { required: true, message: alertMessages.sizeRequired },
                  positive('The size limit must be greater than 0.'),
                ]}
              >
                <InputNumber id="new-alert-size-limit" min={0} style={{ width: 180 }} />
              </Form.Item>
              <Form.Item name="sizeUnit" noStyle>
                <Radio.Group
                  aria-label="Size unit"
                  optionType="button"
                  options={ALERT_SIZE_UNITS.map((unit) => ({ value: unit, label: unit }))}
                />
              </Form.Item>
            </Flex>
          </Form.Item>
        ) : (
          <Form.Item
            label="Cost limit (USD)"
            name="costLimit"
            htmlFor="new-alert-cost-limit"
            extra={
              usage
                ? usage.costMonth
                  ? `${costTitle(usage)}: ${formatUsd(usage.cost, 5)}`
                  : `Currently about ${formatUsd(usage.cost, 5)} per month`
                : undefined
            }
            rules={[
              { required: true, message: alertMessages.costRequired },
              positive('The cost limit must be greater than 0.'),
            ]}
          >
            <InputNumber id="new-alert-cost-limit" min={0} prefix="$" style={{ width: 180 }} />
          </Form.Item>
        )}

        {bucketName === null ? (
          <Form.Item label="Bucket" name="bucket" htmlFor="new-alert-bucket">
            <Select
              id="new-alert-bucket"
              showSearch={{ optionFilterProp: 'label' }}
              options={[
                { value: WHOLE_ACCOUNT, label: 'Whole account' },
                ...account.storages.map((storage) => ({
                  value: storage.bucket_name,
                  label: storage.bucket_name,
                })),
              ]}
            />
          </Form.Item>
        ) : (
          <Form.Item label="Bucket" htmlFor="new-alert-fixed-bucket">
            <Input id="new-alert-fixed-bucket" value={bucketName} readOnly disabled />
          </Form.Item>
        )}

        {failure && (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 16 }}
            title={failure.length === 1 ? failure[0] : undefined}
            description={failure.length > 1 ? failure.join(' ') : undefined}
          />
        )}

        <Flex justify="flex-end" gap={8}>
          <Button onClick={close}>Cancel</Button>
          <Button type="primary" htmlType="submit" loading={save.isPending}>
            Save
          </Button>
        </Flex>
      </Form>
    </Modal>
  );
}
