import { Alert, Button, Select, Space, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { TRANSFER_KINDS, type TransferKind } from './transfer-screen-state.ts';
import { migrationTexts } from './migration-texts.ts';

interface TransferTypeControlsProps {
  value: TransferKind;
  onChange(kind: TransferKind): void;
}

/** The transfer-type dropdown (Direct, ftX) and the "Transfer Status" button of the destination side. */
export function TransferTypeControls({ value, onChange }: TransferTypeControlsProps) {
  const navigate = useNavigate();
  return (
    <Space orientation="vertical" size="small" style={{ width: '100%' }}>
      <Space wrap align="end" size="middle">
        <Space orientation="vertical" size={4}>
          <Typography.Text strong>Transfer Type</Typography.Text>
          <Select
            aria-label="Transfer Type"
            style={{ width: 160 }}
            value={value}
            options={TRANSFER_KINDS.map((kind) => ({ value: kind, label: kind }))}
            onChange={onChange}
          />
        </Space>
        <Button onClick={() => void navigate('/mboard')}>Transfer Status</Button>
      </Space>
      {value === 'ftX' ? <Alert type="warning" showIcon title={migrationTexts.ftxUnavailable} /> : null}
    </Space>
  );
}
