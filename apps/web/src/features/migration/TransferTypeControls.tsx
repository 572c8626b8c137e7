import { Button, Select, Space, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { TRANSFER_KINDS, type TransferKind } from './transfer-screen-state.ts';

interface TransferTypeControlsProps {
  value: TransferKind;
  onChange(kind: TransferKind): void;
}

/**
 * The transfer-type dropdown (Direct, ftX) and the "Transfer Status" button of the destination side. ftX
 * transfers are the agent's, so their status is the Transfers panel of the Cumulo Transfer page (/ftx).
 */
export function TransferTypeControls({ value, onChange }: TransferTypeControlsProps) {
  const navigate = useNavigate();
  return (
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
      <Button onClick={() => void navigate(value === 'ftX' ? '/ftx' : '/mboard')}>Transfer Status</Button>
    </Space>
  );
}
