import { Button, Modal, Space, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { transferMessages } from '@cumulo/contract';
import { migrationTexts } from './migration-texts.ts';

/**
 * Spec 001 §2 Dialogs: the "Transfer Started" popup, with a route to the Transfer Status page. An ftX transfer is
 * run by the agent, not the server, so its status is the agent's Transfers panel on the Cumulo Transfer page.
 */
export function TransferStartedModal({
  open,
  onClose,
  agent = false,
}: {
  open: boolean;
  onClose(): void;
  agent?: boolean;
}) {
  const navigate = useNavigate();
  return (
    <Modal
      open={open}
      title={transferMessages.started}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={onClose}>Close</Button>
          <Button type="primary" onClick={() => void navigate(agent ? '/ftx' : '/mboard')}>
            Transfer Status
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph style={{ margin: 0 }}>
        {agent ? migrationTexts.ftxStartedBody : migrationTexts.startedBody}
      </Typography.Paragraph>
    </Modal>
  );
}
