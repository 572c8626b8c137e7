import { Alert, App, Card, Space, Typography } from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { billingMessages } from '@cumulo/contract';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { billingErrorText, isOwner, useAddCard } from './billing-api.ts';
import { CardForm } from './CardForm.tsx';
import type { CardPayload } from './card-form.ts';

/**
 * /billing/addcreditcard/{subscriptionId?} (spec 002 §2 Settings): the card form with the billing address. The new
 * card becomes the organisation's default, so it also pays the subscription the link names.
 */
export function AddCreditCardPage() {
  useDocumentTitle('Add Credit Card');
  const { subscriptionId } = useParams();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { data: profile, isPending } = useProfile();
  const addCard = useAddCard();

  const submit = async (card: CardPayload) => {
    try {
      await addCard.mutateAsync(card);
      void message.success(billingMessages.cardAdded);
      void navigate('/billing');
    } catch (error) {
      void message.error(billingErrorText(error, billingMessages.cardFailed));
    }
  };

  if (isPending) return <PageSpinner />;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%', maxWidth: 560 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Add Credit Card
      </Typography.Title>
      <Card>
        {isOwner(profile) ? (
          <>
            {subscriptionId && (
              <Typography.Paragraph>
                This card will pay the subscription {subscriptionId}.
              </Typography.Paragraph>
            )}
            <CardForm
              withAddress
              submitting={addCard.isPending}
              onSubmit={submit}
              onCancel={() => void navigate('/billing')}
            />
          </>
        ) : (
          <Alert type="info" showIcon title={billingMessages.ownerOnly} />
        )}
      </Card>
      <Link to="/billing">Back to Billing</Link>
    </Space>
  );
}
