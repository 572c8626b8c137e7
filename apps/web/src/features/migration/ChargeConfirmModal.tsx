import { Alert, App, Button, Modal, Space, Typography } from 'antd';
import { transferMessages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useConfirmC2cCharge } from './migration-api.ts';
import { migrationTexts } from './migration-texts.ts';

/** Spec 001 §9: the charge modal is 700 wide. */
const MODAL_WIDTH = 700;

interface ChargeConfirmModalProps {
  open: boolean;
  onClose(): void;
}

/**
 * Spec 001 §2/§4/§6 "Transfer charge confirmation modal" for cloud to cloud transfers. Only an Owner confirms.
 * The card form belongs to the billing issue: until billing exists, an Owner without a payment method is told one
 * will be requested later and may still confirm, since the server's gate is the confirmation flag alone and
 * refusing would leave the organisation unable to transfer at all.
 */
export function ChargeConfirmModal({ open, onClose }: ChargeConfirmModalProps) {
  const { message } = App.useApp();
  const profile = useProfile().data;
  const confirm = useConfirmC2cCharge();
  const isOwner = profile?.role.title === 'Owner';

  const onConfirm = async () => {
    try {
      await confirm.mutateAsync();
      void message.success(migrationTexts.chargeConfirmed);
      onClose();
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  return (
    <Modal
      open={open}
      title="Cloud To Cloud Transfer"
      width={MODAL_WIDTH}
      onCancel={onClose}
      destroyOnHidden
      footer={
        isOwner ? (
          <Space>
            <Button onClick={onClose}>Cancel</Button>
            <Button type="primary" loading={confirm.isPending} onClick={() => void onConfirm()}>
              Confirm
            </Button>
          </Space>
        ) : (
          <Button onClick={onClose}>Close</Button>
        )
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Paragraph style={{ margin: 0 }}>{migrationTexts.chargeRate}</Typography.Paragraph>
        <Typography.Paragraph style={{ margin: 0 }}>{migrationTexts.chargeBulk}</Typography.Paragraph>
        {isOwner ? (
          <>
            <Typography.Paragraph style={{ margin: 0 }}>{migrationTexts.chargeAsk}</Typography.Paragraph>
            {profile.has_billing_info ? null : (
              <Alert type="info" showIcon title={migrationTexts.chargeNoBilling} />
            )}
          </>
        ) : (
          <Alert type="warning" showIcon title={transferMessages.ownerConfirms} />
        )}
      </Space>
    </Modal>
  );
}
