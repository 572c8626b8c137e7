import { Button, Modal, Space, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { transferMessages } from '@cumulo/contract';
import { migrationTexts } from './migration-texts.ts';

/** Spec 001 §2 Dialogs: the "Transfer Started" popup, with a route to the Transfer Status page. */
export function TransferStartedModal({ open, onClose }: { open: boolean; onClose(): void }) {
  const navigate = useNavigate();
  return (
    <Modal
      open={open}
      title={transferMessages.started}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={onClose}>Close</Button>
          <Button type="primary" onClick={() => void navigate('/mboard')}>
            Transfer Status
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph style={{ margin: 0 }}>{migrationTexts.startedBody}</Typography.Paragraph>
    </Modal>
  );
}
