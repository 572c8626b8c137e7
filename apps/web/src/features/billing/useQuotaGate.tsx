import { useState, type ReactNode } from 'react';
import { App, Button, Modal, Typography } from 'antd';
import { billingMessages, formatBytes, type QuotaKey, type UserProfile } from '@cumulo/contract';
import { billingErrorText, isOwner, useAddCard } from './billing-api.ts';
import { CardForm } from './CardForm.tsx';
import { quotaRefusal, quotaShortfall } from './quota-refusal.ts';

type QuotaDialog = { kind: 'card'; left: number } | { kind: 'limit'; title: string; message: string };

/** Spec 001 §5 names the transfer and encoding limits; the other quotas are counted as transfers. */
const QUOTA_TITLES: Partial<Record<QuotaKey, string>> = { encoding: billingMessages.encodingQuotaTitle };

/**
 * The quota modals of spec 001 §5 for a screen that starts transfers or uploads. `check` runs the UI's check
 * (an Owner without a card gets the card form, anyone else 'Transfers Quota Limit' with what is left);
 * `showRefusal` puts the server's 403 in the same modal, since the server is the rule. Render `dialog`.
 */
export function useQuotaGate(): {
  check(profile: UserProfile, key: QuotaKey, bytes: number): boolean;
  showRefusal(error: unknown): boolean;
  dialog: ReactNode;
} {
  const { message } = App.useApp();
  const addCard = useAddCard();
  const [dialog, setDialog] = useState<QuotaDialog | null>(null);
  const close = () => setDialog(null);

  const check = (profile: UserProfile, key: QuotaKey, bytes: number): boolean => {
    const left = quotaShortfall(profile, key, bytes);
    if (left === null) return true;
    if (isOwner(profile) && !profile.has_billing_info) setDialog({ kind: 'card', left });
    else {
      setDialog({
        kind: 'limit',
        title: QUOTA_TITLES[key] ?? billingMessages.transfersQuotaTitle,
        message: billingMessages.quotaRemaining(formatBytes(left)),
      });
    }
    return false;
  };

  const showRefusal = (error: unknown): boolean => {
    const refusal = quotaRefusal(error);
    if (refusal) setDialog({ kind: 'limit', ...refusal });
    return refusal !== null;
  };

  const node =
    dialog?.kind === 'card' ? (
      <Modal open title="Add Credit Card" footer={null} onCancel={close} destroyOnHidden>
        <Typography.Paragraph>
          You have {formatBytes(dialog.left)} of your trial quota remaining, less than this needs. Add a
          credit card to go on.
        </Typography.Paragraph>
        <CardForm
          submitting={addCard.isPending}
          onCancel={close}
          onSubmit={async (card) => {
            try {
              await addCard.mutateAsync(card);
              void message.success(billingMessages.cardAdded);
              close();
            } catch (error) {
              void message.error(billingErrorText(error, billingMessages.cardFailed));
            }
          }}
        />
      </Modal>
    ) : (
      <Modal
        open={dialog !== null}
        title={dialog?.title}
        onCancel={close}
        footer={<Button onClick={close}>OK</Button>}
        destroyOnHidden
      >
        <Typography.Paragraph style={{ margin: 0 }}>{dialog?.message}</Typography.Paragraph>
      </Modal>
    );

  return { check, showRefusal, dialog: node };
}
