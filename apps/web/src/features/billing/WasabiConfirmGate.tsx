import { useState, type ReactNode } from 'react';
import { Alert, App, Button, Checkbox, Modal, Space, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { billingMessages, messages, transferMessages } from '@cumulo/contract';
import { useProfile } from '../profile/useProfile.ts';
import { billingErrorText, isOwner, useConfirmCharge } from './billing-api.ts';
import { CardForm } from './CardForm.tsx';
import type { CardPayload } from './card-form.ts';

export const wasabiConfirmTexts = {
  title: 'Wasabi Storage',
  body: 'Storage used through Cumulo in Wasabi buckets is billed to your organisation each month for the space it takes.',
  acknowledge: 'I understand that my organisation is charged for the Wasabi storage it uses.',
} as const;

/**
 * Spec 001 §2 "Wasabi storage confirmation modal": until an organisation not flagged is_cbs has confirmed Wasabi,
 * the screen waits behind it. The ticked acknowledgement enables Confirm; without a card on file the card form
 * opens first; then confirmed_wasabi is set and the profile read again. Cancel returns to /.
 */
export function WasabiConfirmGate({ children }: { children: ReactNode }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const profile = useProfile().data;
  const confirm = useConfirmCharge('confirmed_wasabi');
  const [acknowledged, setAcknowledged] = useState(false);
  const [cardShown, setCardShown] = useState(false);
  if (!profile) return null;
  if (profile.organization.is_cbs || profile.organization.confirmed_wasabi) return <>{children}</>;
  const owner = isOwner(profile);
  const needsCard = owner && !profile.has_billing_info;

  const leave = () => void navigate('/');
  const onConfirm = async (card: CardPayload | null) => {
    try {
      await confirm.mutateAsync(card);
      if (card) void message.success(billingMessages.cardAdded);
    } catch (error) {
      void message.error(billingErrorText(error, card ? billingMessages.cardFailed : messages.generic));
    }
  };

  return (
    <Modal
      open
      title={wasabiConfirmTexts.title}
      onCancel={leave}
      footer={
        cardShown ? null : (
          <Space>
            <Button onClick={leave}>Cancel</Button>
            {owner && (
              <Button
                type="primary"
                disabled={!acknowledged}
                loading={confirm.isPending}
                onClick={() => (needsCard ? setCardShown(true) : void onConfirm(null))}
              >
                Confirm
              </Button>
            )}
          </Space>
        )
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Paragraph style={{ margin: 0 }}>{wasabiConfirmTexts.body}</Typography.Paragraph>
        {owner ? (
          <Checkbox
            checked={acknowledged}
            onChange={(event) => {
              setAcknowledged(event.target.checked);
              if (!event.target.checked) setCardShown(false);
            }}
          >
            {wasabiConfirmTexts.acknowledge}
          </Checkbox>
        ) : (
          <Alert type="warning" showIcon title={transferMessages.ownerConfirms} />
        )}
        {cardShown && (
          <CardForm
            submitText="Add Card and Confirm"
            submitting={confirm.isPending}
            onCancel={leave}
            onSubmit={(card) => onConfirm(card)}
          />
        )}
      </Space>
    </Modal>
  );
}
