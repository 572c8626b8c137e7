import { useState } from 'react';
import { App, Button, Checkbox, Modal, Radio, Space, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { billingMessages, formatUsd, type BillingPeriod, type PackageDefinition } from '@cumulo/contract';
import { useProfile } from '../profile/useProfile.ts';
import { billingErrorText, isOwner, useRequestService, useSubscribe } from './billing-api.ts';
import { CardForm } from './CardForm.tsx';
import type { CardPayload } from './card-form.ts';

interface SubscriptionModalProps {
  pkg: PackageDefinition;
  /** Controlled use (/pricings): the caller opens and closes it. Without it the modal gates a screen. */
  open?: boolean;
  onClose?(): void;
  initialPeriod?: BillingPeriod;
}

const PERIOD_WORD: Record<BillingPeriod, string> = { monthly: 'month', annually: 'year' };

/**
 * The subscription modal of spec 002 §4, the gate of every paid screen. The period resets the confirmation; the
 * ticked confirmation enables Confirm (Owner) or Send Request (others). An Owner with a card on file subscribes at
 * once; without one the card form shows (unticking hides it). A member's request goes to the Owner, then to /.
 * Cancel goes to / unless the caller controls the modal.
 */
export function SubscriptionModal({
  pkg,
  open = true,
  onClose,
  initialPeriod = 'monthly',
}: SubscriptionModalProps) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const profile = useProfile().data;
  const subscribe = useSubscribe();
  const requestService = useRequestService();
  const [period, setPeriod] = useState<BillingPeriod>(initialPeriod);
  const [confirmed, setConfirmed] = useState(false);
  const owner = isOwner(profile);
  const needsCard = owner && profile?.has_billing_info === false;
  const price = period === 'monthly' ? pkg.price_monthly : pkg.price_annually;

  const close = () => {
    if (onClose) onClose();
    else void navigate('/');
  };

  const buy = async (card?: CardPayload) => {
    try {
      await subscribe.mutateAsync({
        product_handle: pkg.handle,
        period,
        ...(card ? { credit_card_attributes: card } : {}),
      });
      void message.success(billingMessages.subscribed);
      setConfirmed(false);
      onClose?.();
    } catch (error) {
      void message.error(billingErrorText(error, billingMessages.cardFailed));
    }
  };

  const sendRequest = async () => {
    try {
      await requestService.mutateAsync({ service_name: pkg.handle, plan: period });
      void message.success(billingMessages.requestSent);
      void navigate('/');
    } catch (error) {
      void message.error(billingErrorText(error, billingMessages.requestFailed));
    }
  };

  const footer = needsCard ? (
    <Button onClick={close}>Cancel</Button>
  ) : (
    <Space>
      <Button onClick={close}>Cancel</Button>
      {owner ? (
        <Button type="primary" disabled={!confirmed} loading={subscribe.isPending} onClick={() => void buy()}>
          Confirm
        </Button>
      ) : (
        <Button
          type="primary"
          disabled={!confirmed}
          loading={requestService.isPending}
          onClick={() => void sendRequest()}
        >
          Send Request
        </Button>
      )}
    </Space>
  );

  return (
    <Modal open={open} title={`Subscribe to ${pkg.title}`} onCancel={close} footer={footer} destroyOnHidden>
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Paragraph style={{ margin: 0 }}>{pkg.description}</Typography.Paragraph>
        <Radio.Group
          aria-label="Billing period"
          value={period}
          onChange={(event) => {
            setPeriod(event.target.value as BillingPeriod);
            setConfirmed(false);
          }}
          options={[
            { value: 'monthly', label: `Monthly ${formatUsd(pkg.price_monthly, 0)}` },
            { value: 'annually', label: `Annually ${formatUsd(pkg.price_annually, 0)}` },
          ]}
        />
        <Checkbox checked={confirmed} onChange={(event) => setConfirmed(event.target.checked)}>
          {owner
            ? `I agree to pay ${formatUsd(price, 0)} per ${PERIOD_WORD[period]} for ${pkg.title}.`
            : `Ask the Owner of my organisation to subscribe to ${pkg.title} (${formatUsd(price, 0)} per ${PERIOD_WORD[period]}).`}
        </Checkbox>
        {needsCard && confirmed && (
          <CardForm submitText="Confirm" submitting={subscribe.isPending} onSubmit={(card) => buy(card)} />
        )}
      </Space>
    </Modal>
  );
}
