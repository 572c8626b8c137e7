import { useState } from 'react';
import { Alert, Button, Card, Descriptions, InputNumber, Select, Space, Typography } from 'antd';
import { calculatorSize, type CostEstimate } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useCalculateCost } from './migration-api.ts';

/** Spec 000 §9 / 001 §9: transfer costs are shown in USD to 5 decimals. */
const money = (value: number) => `$${value.toFixed(5)}`;

const chooseAccountText = 'Choose a source and a destination account.';

/** /calc (spec 001 §2 "Migration Cost Calculator"): egress, transfer charge and total for a size in GB. */
export function CostCalculatorPage() {
  useDocumentTitle('Migration Cost Calculator');
  const accountsQuery = useCloudAccounts();
  const options = (accountsQuery.data ?? []).map((account) => ({ value: account.id, label: account.name }));
  const calculate = useCalculateCost();
  const [sourceId, setSourceId] = useState<string | null>(null);
  const [destinationId, setDestinationId] = useState<string | null>(null);
  const [size, setSize] = useState<number | null>(null);
  const [missingAccounts, setMissingAccounts] = useState(false);
  const [estimate, setEstimate] = useState<CostEstimate | null>(null);

  const onCalculate = async () => {
    if (size === null) return;
    if (!sourceId || !destinationId) {
      setMissingAccounts(true);
      return;
    }
    setMissingAccounts(false);
    // A refused calculation must not leave the last answer standing under it as if it were this one's.
    setEstimate(null);
    setEstimate(
      await calculate.mutateAsync({
        sourceCloudAccountId: sourceId,
        destinationCloudAccountId: destinationId,
        size: calculatorSize(size),
      }),
    );
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%', maxWidth: 720 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Migration Cost Calculator
      </Typography.Title>
      <Card>
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          <Space wrap size="middle">
            <Space orientation="vertical" size={4}>
              <Typography.Text strong>Source Account</Typography.Text>
              <Select
                aria-label="Source Account"
                style={{ width: 260 }}
                placeholder="Select account"
                loading={accountsQuery.isPending}
                showSearch={{ optionFilterProp: 'label' }}
                value={sourceId ?? undefined}
                options={options}
                onChange={(id: string) => {
                  setSourceId(id);
                  setEstimate(null);
                }}
              />
            </Space>
            <Space orientation="vertical" size={4}>
              <Typography.Text strong>Destination Account</Typography.Text>
              <Select
                aria-label="Destination Account"
                style={{ width: 260 }}
                placeholder="Select account"
                loading={accountsQuery.isPending}
                showSearch={{ optionFilterProp: 'label' }}
                value={destinationId ?? undefined}
                options={options}
                onChange={(id: string) => {
                  setDestinationId(id);
                  setEstimate(null);
                }}
              />
            </Space>
          </Space>
          <Space orientation="vertical" size={4}>
            <Typography.Text strong>
              <label htmlFor="calc-size">Transfer Size(GB)</label>
            </Typography.Text>
            {/* Spec 000 §5 / 001 §5: every size is taken and rounded to a whole number of GB, at least 1 (0.4 → 1,
                2.6 → 3); a minimum or precision on the field would instead drop what was typed. */}
            <InputNumber
              id="calc-size"
              style={{ width: 200 }}
              value={size}
              onChange={(value) => {
                setSize(typeof value === 'number' ? value : null);
                setEstimate(null);
              }}
              onBlur={() => setSize((typed) => (typed === null ? null : calculatorSize(typed)))}
            />
          </Space>
          {missingAccounts ? <Alert type="warning" showIcon title={chooseAccountText} /> : null}
          <Button
            type="primary"
            disabled={size === null}
            loading={calculate.isPending}
            onClick={() => void onCalculate().catch(() => undefined)}
          >
            Calculate
          </Button>
          {calculate.isError ? <Alert type="error" showIcon title={describeError(calculate.error)} /> : null}
        </Space>
      </Card>
      {estimate ? (
        <Card title="Estimated cost">
          <Descriptions column={1} bordered size="small">
            <Descriptions.Item label="Transfer size">{estimate.sizeGb} GB</Descriptions.Item>
            <Descriptions.Item label="Egress">{money(estimate.egressCost)}</Descriptions.Item>
            <Descriptions.Item label="Transfer charge">{money(estimate.transferCost)}</Descriptions.Item>
            <Descriptions.Item label="Total">{money(estimate.total)}</Descriptions.Item>
          </Descriptions>
        </Card>
      ) : null}
    </Space>
  );
}
