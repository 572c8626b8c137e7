import { useState } from 'react';
import { Alert, App, Button, Modal, Space, Typography } from 'antd';
import { billingMessages, messages, transferMessages } from '@cumulo/contract';
import { billingErrorText, isOwner, useConfirmCharge } from '../billing/billing-api.ts';
import { CardForm } from '../billing/CardForm.tsx';
import type { CardPayload } from '../billing/card-form.ts';
import { useProfile } from '../profile/useProfile.ts';
import { migrationTexts } from './migration-texts.ts';

/** Spec 001 §9: the charge modal is 700 wide. */
const MODAL_WIDTH = 700;

/** Spec 001 §2: the two charge modals, by the organisation flag each sets. */
const CHARGES = {
  c2c: {
    title: 'Cloud To Cloud Transfer',
    flag: 'confirmed_c2c',
    rate: migrationTexts.chargeRate,
    ask: migrationTexts.chargeAsk,
    confirmed: migrationTexts.chargeConfirmed,
  },
  ftx: {
    title: 'Ftx Transfer',
    flag: 'confirmed_ftx',
    rate: migrationTexts.ftxChargeRate,
    ask: migrationTexts.ftxChargeAsk,
    confirmed: migrationTexts.ftxChargeConfirmed,
  },
} as const;

interface ChargeConfirmModalProps {
  open: boolean;
  onClose(): void;
  kind?: keyof typeof CHARGES;
}

/**
 * Spec 001 §2/§4/§6 "Transfer charge confirmation modal". Only an Owner acts: with a card on file Confirm sets the
 * organisation's flag; without one Confirm opens the card form, and the card is added before the flag is set.
 */
export function ChargeConfirmModal({ open, onClose, kind = 'c2c' }: ChargeConfirmModalProps) {
  const { message } = App.useApp();
  const profile = useProfile().data;
  const charge = CHARGES[kind];
  const confirm = useConfirmCharge(charge.flag);
  const [cardShown, setCardShown] = useState(false);
  const owner = isOwner(profile);
  const needsCard = owner && profile?.has_billing_info === false;

  const close = () => {
    setCardShown(false);
    onClose();
  };

  const onConfirm = async (card: CardPayload | null) => {
    try {
      await confirm.mutateAsync(card);
      if (card) void message.success(billingMessages.cardAdded);
      void message.success(charge.confirmed);
      close();
    } catch (error) {
      void message.error(billingErrorText(error, card ? billingMessages.cardFailed : messages.generic));
    }
  };

  const footer = !owner ? (
    <Button onClick={close}>Close</Button>
  ) : cardShown ? null : (
    <Space>
      <Button onClick={close}>Cancel</Button>
      <Button
        type="primary"
        loading={confirm.isPending}
        onClick={() => (needsCard ? setCardShown(true) : void onConfirm(null))}
      >
        Confirm
      </Button>
    </Space>
  );

  return (
    <Modal
      open={open}
      title={charge.title}
      width={MODAL_WIDTH}
      onCancel={close}
      destroyOnHidden
      footer={footer}
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Paragraph style={{ margin: 0 }}>{charge.rate}</Typography.Paragraph>
        <Typography.Paragraph style={{ margin: 0 }}>{migrationTexts.chargeBulk}</Typography.Paragraph>
        {owner ? (
          <>
            <Typography.Paragraph style={{ margin: 0 }}>{charge.ask}</Typography.Paragraph>
            {needsCard && !cardShown && <Alert type="info" showIcon title={migrationTexts.chargeNoBilling} />}
            {cardShown && (
              <CardForm
                submitText="Add Card and Confirm"
                submitting={confirm.isPending}
                onCancel={close}
                onSubmit={(card) => onConfirm(card)}
              />
            )}
          </>
        ) : (
          <Alert type="warning" showIcon title={transferMessages.ownerConfirms} />
        )}
      </Space>
    </Modal>
  );
}
