import { Select, Space, Typography } from 'antd';
import type { CloudAccountView } from '@cumulo/contract';

interface Option {
  value: string;
  label: string;
}

interface AccountBucketSelectsProps {
  accountLabel: string;
  bucketLabel: string;
  accounts: readonly CloudAccountView[];
  /** Options listed before the accounts (the two-panel screen's "Local"). */
  extraAccounts?: Option[];
  accountId: string | null;
  bucket: string | null;
  loading?: boolean;
  disabled?: boolean;
  /** False hides the bucket picker (Local has none). */
  showBucket?: boolean;
  onAccountChange(accountId: string): void;
  onBucketChange(bucket: string): void;
}

const FIELD_WIDTH = 260;

/** An account and a bucket picker with search (spec 001 §2), labelled with the spec's words. */
export function AccountBucketSelects({
  accountLabel,
  bucketLabel,
  accounts,
  extraAccounts = [],
  accountId,
  bucket,
  loading,
  disabled,
  showBucket = true,
  onAccountChange,
  onBucketChange,
}: AccountBucketSelectsProps) {
  const account = accounts.find((candidate) => candidate.id === accountId);
  const accountKnown = account !== undefined || extraAccounts.some((option) => option.value === accountId);
  return (
    <Space wrap size="middle">
      <Space orientation="vertical" size={4}>
        <Typography.Text strong>{accountLabel}</Typography.Text>
        <Select
          aria-label={accountLabel}
          style={{ width: FIELD_WIDTH }}
          placeholder="Select account"
          loading={loading}
          disabled={disabled}
          showSearch={{ optionFilterProp: 'label' }}
          value={accountKnown ? (accountId ?? undefined) : undefined}
          options={[
            ...extraAccounts,
            ...accounts.map((candidate) => ({ value: candidate.id, label: candidate.name })),
          ]}
          onChange={onAccountChange}
        />
      </Space>
      {showBucket ? (
        <Space orientation="vertical" size={4}>
          <Typography.Text strong>{bucketLabel}</Typography.Text>
          <Select
            aria-label={bucketLabel}
            style={{ width: FIELD_WIDTH }}
            placeholder="Select bucket"
            disabled={disabled || !account}
            showSearch={{ optionFilterProp: 'label' }}
            value={account && bucket ? bucket : undefined}
            options={(account?.storages ?? []).map((storage) => ({
              value: storage.bucket_name,
              label: storage.bucket_name,
            }))}
            onChange={onBucketChange}
          />
        </Space>
      ) : null}
    </Space>
  );
}
