import { useState } from 'react';
import { Alert, App, Button, Flex, Form, InputNumber, Modal, Select, Spin, Switch } from 'antd';
import dayjs from 'dayjs';
import {
  ALERT_PERCENT_DEFAULT,
  ALERT_PERCENT_MAX,
  ALERT_PERCENT_MIN,
  budgetLabelOf,
  defaultAlertRange,
  financeMessages,
  type BudgetAlertConfig,
  type SetBudgetAlertBody,
} from '@cumulo/contract';
import { useBudgetAlertConfig, useSetBudgetAlert } from './finance-api.ts';
import { refusalOr } from './finance-failure.ts';

/** One alert percentage as the form holds it: the number typed, and whether this alert is on. */
interface PercentField {
  on: boolean;
  value: number | null;
}

export interface AlertFormValues {
  actual: PercentField;
  forecast: PercentField;
  /** First days of months, 'YYYY-MM-01'. */
  start: string;
  end: string;
}

/** 'Nov 2026' for '2026-11-01'. */
export const monthLabel = (firstDay: string) => dayjs(firstDay).format('MMM YYYY');

/** The months an alert may cover (spec 002 §5): every month of the current year and the next, as 'YYYY-MM-01'. */
function alertMonths(now: Date): string[] {
  const year = now.getUTCFullYear();
  return [year, year + 1].flatMap((y) =>
    Array.from({ length: 12 }, (_, index) => `${y}-${String(index + 1).padStart(2, '0')}-01`),
  );
}

/** The form's starting values: the saved alert, or a new one's defaults (80 %, 80 %, this month to December). */
function alertFormOf(config: BudgetAlertConfig | undefined, now: Date): AlertFormValues {
  const range = defaultAlertRange(now);
  // A disabled alert keeps the default in its box, so switching it back on offers 80 %.
  const percentOf = (saved: number | null): PercentField => ({
    on: saved !== null,
    value: saved ?? ALERT_PERCENT_DEFAULT,
  });
  return {
    actual: percentOf(config ? config.actual_alert_percent : ALERT_PERCENT_DEFAULT),
    forecast: percentOf(config ? config.forecast_alert_percent : ALERT_PERCENT_DEFAULT),
    start: config?.start.slice(0, 10) ?? range.start,
    end: config?.end.slice(0, 10) ?? range.end,
  };
}

const isPercent = (value: number | null): value is number =>
  value !== null && Number.isInteger(value) && value >= ALERT_PERCENT_MIN && value <= ALERT_PERCENT_MAX;

/**
 * POST /finance/alerts's body from the form, or the contract's words for what is wrong: a disabled alert is sent
 * as null (spec 002 §5), at least one must be on, the range must run forward.
 */
function alertBodyOf(
  cloud: string,
  product: string,
  values: AlertFormValues,
): { body: SetBudgetAlertBody } | { problem: string } {
  if (!values.actual.on && !values.forecast.on) return { problem: financeMessages.alertNeedsOne };
  for (const field of [values.actual, values.forecast]) {
    if (field.on && !isPercent(field.value)) return { problem: financeMessages.invalidPercent };
  }
  if (values.end < values.start) return { problem: financeMessages.alertRange };
  return {
    body: {
      cloud,
      product,
      actual_alert_percent: values.actual.on ? values.actual.value : null,
      forecast_alert_percent: values.forecast.on ? values.forecast.value : null,
      start: values.start,
      end: values.end,
    },
  };
}

const SAVED_ALERT_UNREAD = 'The saved alert could not be read: these are the defaults of a new one.';

interface SetAlertModalProps {
  /** The cloud account of the screen's filter. */
  cloud: string;
  /** The budget label: 'Total' for the cloud's own budget, else a product. */
  product: string;
  onClose: () => void;
}

/** Spec 002 §2 Finance "set-alert modal": the actual and forecast alert of one cloud and product. */
export function SetAlertModal({ cloud, product, onClose }: SetAlertModalProps) {
  const config = useBudgetAlertConfig(cloud, product);
  const title = `Set alert: ${budgetLabelOf(product)}`;
  return (
    <Modal title={title} open onCancel={onClose} footer={null} destroyOnHidden>
      {config.isPending ? (
        <Flex justify="center" style={{ padding: 24 }}>
          <Spin aria-label="Loading the alert" />
        </Flex>
      ) : (
        <>
          {config.isError && (
            // The form still opens with a new alert's defaults: saving replaces whatever alert is there.
            <Alert type="warning" showIcon title={SAVED_ALERT_UNREAD} style={{ marginBottom: 16 }} />
          )}
          <AlertForm
            cloud={cloud}
            product={product}
            initial={alertFormOf(config.data, new Date())}
            onClose={onClose}
          />
        </>
      )}
    </Modal>
  );
}

interface AlertFormProps {
  cloud: string;
  product: string;
  initial: AlertFormValues;
  onClose: () => void;
}

function AlertForm({ cloud, product, initial, onClose }: AlertFormProps) {
  const { message } = App.useApp();
  const save = useSetBudgetAlert();
  const [values, setValues] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const months = alertMonths(new Date());
  // A saved alert may cover months that are no longer offered (last year's): it still reads as a month.
  const monthOptions = [...new Set([values.start, values.end, ...months])]
    .sort()
    .map((value) => ({ value, label: monthLabel(value), disabled: !months.includes(value) }));

  const change = (next: Partial<AlertFormValues>) => {
    setProblem(null);
    setValues((current) => ({ ...current, ...next }));
  };

  const submit = () => {
    const checked = alertBodyOf(cloud, product, values);
    if ('problem' in checked) {
      setProblem(checked.problem);
      return;
    }
    save.mutate(checked.body, {
      onSuccess: () => {
        void message.success(financeMessages.alertSaved);
        onClose();
      },
      onError: (error) => void message.error(refusalOr(error, financeMessages.alertSaveFailed)),
    });
  };

  const percentRow = (key: 'actual' | 'forecast', label: string) => (
    <Form.Item label={`${label} %`} htmlFor={`set-alert-${key}`}>
      <Flex gap={12} align="center">
        <Switch
          aria-label={`${label} alert`}
          checked={values[key].on}
          onChange={(on) => change({ [key]: { ...values[key], on } })}
        />
        <InputNumber
          id={`set-alert-${key}`}
          disabled={!values[key].on}
          value={values[key].value}
          suffix="%"
          style={{ width: 140 }}
          onChange={(value) => change({ [key]: { ...values[key], value } })}
        />
        {!values[key].on && <span>off</span>}
      </Flex>
    </Form.Item>
  );

  return (
    <Form layout="vertical" onFinish={submit}>
      {percentRow('actual', 'Actual')}
      {percentRow('forecast', 'Forecast')}
      <Flex gap={12}>
        <Form.Item label="Start month" htmlFor="set-alert-start" style={{ flex: 1 }}>
          <Select
            id="set-alert-start"
            value={values.start}
            options={monthOptions}
            virtual={false}
            onChange={(start: string) => change({ start })}
          />
        </Form.Item>
        <Form.Item label="End month" htmlFor="set-alert-end" style={{ flex: 1 }}>
          <Select
            id="set-alert-end"
            value={values.end}
            options={monthOptions}
            virtual={false}
            onChange={(end: string) => change({ end })}
          />
        </Form.Item>
      </Flex>
      {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
      <Flex justify="end" gap={8}>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          Save
        </Button>
      </Flex>
    </Form>
  );
}
