import { useState } from 'react';
import { Alert, App, Button, Flex, Form, Input, Modal, Radio, Spin, Switch, Tag, Typography } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import {
  EMAIL_PATTERN,
  FINANCE_EMAILS_MAX,
  LOGS_FREQUENCIES,
  financeMessages,
  formatFinanceAmount,
  type FinanceSettings,
  type FinanceSettingsBody,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useFinanceSettings, useSaveFinanceSettings } from './finance-api.ts';

/** The number the preview formats: large enough to show the thousands separator and the cents. */
const PREVIEW_AMOUNT = 12_345.67;
/** Spec 000 §9: timestamps read MM/DD/YYYY - HH:mm in local time. */
const TIMESTAMP_FORMAT = 'MM/DD/YYYY - HH:mm';
const DAY_FORMAT = 'MM/DD/YYYY';

/** The e-mail list after a member typed into it: the addresses kept, or why the last entry was refused. */
function acceptEmails(typed: string[]): { emails: string[] } | { problem: string } {
  const emails = [...new Set(typed.map((address) => address.trim().toLowerCase()).filter(Boolean))];
  const invalid = emails.find((address) => !EMAIL_PATTERN.test(address));
  if (invalid !== undefined) return { problem: financeMessages.invalidEmail(invalid) };
  if (emails.length > FINANCE_EMAILS_MAX) return { problem: financeMessages.tooManyEmails };
  return { emails };
}

interface EmailListProps {
  id: string;
  label: string;
  value: string[];
  onChange: (emails: string[]) => void;
}

/**
 * A tag list of addresses: Enter (or a comma, or leaving the box) adds what was typed; an invalid address is
 * refused where it was typed, with the contract's words, and stays in the box to be corrected.
 */
function EmailListInput({ id, label, value, onChange }: EmailListProps) {
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const add = () => {
    if (!draft.trim()) return;
    const accepted = acceptEmails([...value, ...draft.split(/[,;\s]+/)]);
    if ('problem' in accepted) {
      setProblem(accepted.problem);
      return;
    }
    setProblem(null);
    setDraft('');
    onChange(accepted.emails);
  };

  return (
    <Form.Item
      label={label}
      htmlFor={id}
      validateStatus={problem ? 'error' : undefined}
      help={problem ?? 'Press Enter after each address.'}
    >
      {value.length > 0 && (
        <Flex gap={4} wrap style={{ marginBottom: 8 }}>
          {value.map((address) => (
            <Tag key={address}>
              {address}
              <Button
                type="text"
                size="small"
                icon={<CloseOutlined />}
                aria-label={`Remove ${address}`}
                onClick={() => onChange(value.filter((kept) => kept !== address))}
              />
            </Tag>
          ))}
        </Flex>
      )}
      <Input
        id={id}
        placeholder="name@example.com"
        value={draft}
        onChange={(event) => {
          setProblem(null);
          setDraft(event.target.value);
        }}
        onPressEnter={(event) => {
          // Enter adds the address; it must not submit the whole form.
          event.preventDefault();
          add();
        }}
        onBlur={add}
      />
    </Form.Item>
  );
}

/** The digest's state (STYLE: every background job's state is visible): what went last and when the next goes. */
function DigestState({ settings }: { settings: FinanceSettings }) {
  const last = settings.last_digest;
  const period = last
    ? `${dayjs(last.period_start).format(DAY_FORMAT)} – ${dayjs(last.period_end).format(DAY_FORMAT)}`
    : '';
  let lastText = 'No activity digest has been sent yet.';
  if (last?.error) lastText = `The digest of ${period} failed: ${last.error}`;
  else if (last?.sent_at)
    lastText = `The digest of ${period} went on ${dayjs(last.sent_at).format(TIMESTAMP_FORMAT)} with ${last.entries} ${last.entries === 1 ? 'entry' : 'entries'}.`;
  else if (last) lastText = `The digest of ${period} is being sent.`;
  const nextText = settings.next_digest_at
    ? `Next digest: ${dayjs(settings.next_digest_at).format(TIMESTAMP_FORMAT)}.`
    : 'No digest is scheduled: add a logs e-mail address to send one.';
  return (
    <Alert
      type={last?.error ? 'warning' : 'info'}
      showIcon
      title="Activity digest"
      description={
        <>
          <div>{lastText}</div>
          <div>{nextText}</div>
        </>
      }
      style={{ marginBottom: 16 }}
    />
  );
}

/** Spec 002 §2 Finance "settings modal" (Set Preferences): who is told, how often, and how numbers read. */
export function FinanceSettingsModal({ onClose }: { onClose: () => void }) {
  const settings = useFinanceSettings();
  return (
    <Modal title="Set Preferences" open onCancel={onClose} footer={null} width={640} destroyOnHidden>
      {settings.isPending ? (
        <Flex justify="center" style={{ padding: 24 }}>
          <Spin aria-label="Loading the settings" />
        </Flex>
      ) : settings.isError ? (
        <Alert type="error" showIcon title={describeError(settings.error)} />
      ) : (
        <SettingsForm settings={settings.data} onClose={onClose} />
      )}
    </Modal>
  );
}

const SWITCHES = [
  ['show_dollar_sign', 'Show the dollar sign'],
  ['show_decimal', 'Show decimals'],
  ['show_border', 'Show table borders'],
] as const;

function SettingsForm({ settings, onClose }: { settings: FinanceSettings; onClose: () => void }) {
  const { message } = App.useApp();
  const save = useSaveFinanceSettings();
  const [values, setValues] = useState<FinanceSettingsBody>({
    alert_emails: settings.alert_emails,
    logs_emails: settings.logs_emails,
    logs_frequency: settings.logs_frequency,
    show_dollar_sign: settings.show_dollar_sign,
    show_decimal: settings.show_decimal,
    show_border: settings.show_border,
  });
  const change = (next: Partial<FinanceSettingsBody>) => setValues((current) => ({ ...current, ...next }));

  const submit = () =>
    save.mutate(values, {
      onSuccess: () => {
        void message.success(financeMessages.settingsSaved);
        onClose();
      },
      onError: () => void message.error(financeMessages.settingsFailed),
    });

  return (
    <Form layout="vertical" onFinish={submit}>
      <EmailListInput
        id="finance-alert-emails"
        label="Alert e-mails"
        value={values.alert_emails}
        onChange={(alert_emails) => change({ alert_emails })}
      />
      <EmailListInput
        id="finance-logs-emails"
        label="Logs e-mails"
        value={values.logs_emails}
        onChange={(logs_emails) => change({ logs_emails })}
      />
      <Form.Item label="Logs frequency">
        <Radio.Group
          aria-label="Logs frequency"
          optionType="button"
          value={values.logs_frequency}
          options={LOGS_FREQUENCIES.map((frequency) => ({ value: frequency, label: frequency }))}
          onChange={(event) =>
            change({ logs_frequency: event.target.value as FinanceSettingsBody['logs_frequency'] })
          }
        />
      </Form.Item>
      <DigestState settings={settings} />
      <Flex gap={24} wrap align="center" style={{ marginBottom: 16 }}>
        {SWITCHES.map(([key, label]) => (
          <Flex key={key} gap={8} align="center">
            <Switch aria-label={label} checked={values[key]} onChange={(on) => change({ [key]: on })} />
            <span>{label}</span>
          </Flex>
        ))}
      </Flex>
      <Flex gap={8} align="center" style={{ marginBottom: 16 }}>
        <Typography.Text type="secondary">Preview</Typography.Text>
        <output
          aria-label="Preview"
          style={{
            padding: '4px 12px',
            border: values.show_border ? '1px solid #d9d9d9' : '1px solid transparent',
            fontVariantNumeric: 'tabular-nums',
          }}
        >
          {formatFinanceAmount(PREVIEW_AMOUNT, values)}
        </output>
      </Flex>
      <Flex justify="end" gap={8}>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          Save
        </Button>
      </Flex>
    </Form>
  );
}
