import { useState } from 'react';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Empty,
  List,
  Modal,
  Popconfirm,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import { Link } from 'react-router';
import {
  CARD_BRAND_NAMES,
  FREE_PLAN_HANDLE,
  SEAT_PRICE_MONTHLY,
  billingMessages,
  formatUsd,
  type PaymentProfileView,
  type SubscriptionView,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DateText } from '../../ui/DateText.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import {
  billingErrorText,
  isOwner,
  planTitle,
  useBillingInfo,
  useCancelSubscription,
  useMakeDefaultCard,
  usePaymentProfiles,
  useReactivateSubscription,
  useRemoveCard,
  useReplaceCard,
  useSubscriptionEvents,
} from './billing-api.ts';
import { CardForm } from './CardForm.tsx';

const STATE_COLOURS: Record<SubscriptionView['state'], string> = {
  active: 'green',
  past_due: 'orange',
  pending_cancel: 'gold',
  canceled: 'default',
};

/** A subscription's state in words, not its code. */
const STATE_TEXT: Record<SubscriptionView['state'], string> = {
  active: 'Active',
  past_due: 'Past due',
  pending_cancel: 'Ends at period end',
  canceled: 'Canceled',
};

function expiryText(card: PaymentProfileView): string {
  return `${String(card.expiration_month).padStart(2, '0')}/${card.expiration_year}`;
}

/** /billing (spec 002 §2 Settings): the organisation's cards, then its plan and subscriptions. */
export function BillingPage() {
  useDocumentTitle('Billing');
  const profile = useProfile().data;
  const owner = isOwner(profile);
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%', maxWidth: 960 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Billing
      </Typography.Title>
      <PaymentCards owner={owner} />
      <Subscriptions owner={owner} />
    </Space>
  );
}

function PaymentCards({ owner }: { owner: boolean }) {
  const { message } = App.useApp();
  const cards = usePaymentProfiles();
  const remove = useRemoveCard();
  const replace = useReplaceCard();
  const makeDefault = useMakeDefaultCard();
  const [replacing, setReplacing] = useState<PaymentProfileView | null>(null);

  const makeCardDefault = async (card: PaymentProfileView) => {
    try {
      const answer = await makeDefault.mutateAsync(card.id);
      void message.success(answer.message);
    } catch (error) {
      void message.error(billingErrorText(error, describeError(error)));
    }
  };

  const removeCard = async (card: PaymentProfileView) => {
    try {
      await remove.mutateAsync(card.id);
      void message.success(billingMessages.cardRemoved);
    } catch (error) {
      void message.error(billingErrorText(error, describeError(error)));
    }
  };

  return (
    <Card
      title="Payment Cards"
      extra={
        owner ? (
          <Link to="/billing/addcreditcard">
            <Button type="primary">Add Credit Card</Button>
          </Link>
        ) : null
      }
    >
      {cards.isPending ? (
        <PageSpinner />
      ) : cards.error ? (
        <Alert type="error" showIcon title={describeError(cards.error)} />
      ) : cards.data.length === 0 ? (
        <Empty description={billingMessages.noCards} />
      ) : (
        <List
          dataSource={cards.data}
          renderItem={(card) => (
            <List.Item
              actions={
                owner
                  ? [
                      ...(card.default
                        ? []
                        : [
                            <Button
                              key="default"
                              type="link"
                              aria-label={`Make ${card.masked_card_number} the default card`}
                              loading={makeDefault.isPending && makeDefault.variables === card.id}
                              onClick={() => void makeCardDefault(card)}
                            >
                              Make default
                            </Button>,
                          ]),
                      <Button key="replace" type="link" onClick={() => setReplacing(card)}>
                        Replace
                      </Button>,
                      <Popconfirm
                        key="remove"
                        title="Remove this card?"
                        okText="Remove"
                        onConfirm={() => removeCard(card)}
                      >
                        <Button type="link" danger>
                          Remove
                        </Button>
                      </Popconfirm>,
                    ]
                  : []
              }
            >
              <List.Item.Meta
                title={
                  <Space>
                    <span>{card.masked_card_number}</span>
                    {card.default && <Tag color="blue">Default</Tag>}
                  </Space>
                }
                description={`${CARD_BRAND_NAMES[card.card_type]} · ${card.first_name} ${card.last_name} · Expires ${expiryText(card)}`}
              />
            </List.Item>
          )}
        />
      )}
      <Modal
        open={replacing !== null}
        title="Replace Credit Card"
        footer={null}
        onCancel={() => setReplacing(null)}
        destroyOnHidden
      >
        <CardForm
          submitText="Replace Card"
          submitting={replace.isPending}
          onCancel={() => setReplacing(null)}
          onSubmit={async (card) => {
            if (!replacing) return;
            try {
              await replace.mutateAsync({ id: replacing.id, card });
              void message.success(billingMessages.cardAdded);
              setReplacing(null);
            } catch (error) {
              void message.error(billingErrorText(error, billingMessages.cardFailed));
            }
          }}
        />
      </Modal>
    </Card>
  );
}

function Subscriptions({ owner }: { owner: boolean }) {
  const { message } = App.useApp();
  const info = useBillingInfo();
  const cancel = useCancelSubscription();
  const reactivate = useReactivateSubscription();

  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (error) {
      void message.error(billingErrorText(error, describeError(error)));
    }
  };

  if (info.isPending) return <PageSpinner />;
  if (info.error) return <Alert type="error" showIcon title={describeError(info.error)} />;
  const { plan, subscriptions, in_trial, seats } = info.data;
  return (
    <Card title="Plan and Subscriptions" extra={<Link to="/plan">See plans</Link>}>
      <Descriptions column={1} size="small" style={{ marginBottom: 16 }}>
        <Descriptions.Item label="Plan">{planTitle(plan, in_trial)}</Descriptions.Item>
        <Descriptions.Item label="Members">
          {seats === 0
            ? 'No paid members'
            : `${seats} beyond the first × ${formatUsd(SEAT_PRICE_MONTHLY)}/month = ${formatUsd(seats * SEAT_PRICE_MONTHLY)}/month`}
        </Descriptions.Item>
      </Descriptions>
      <section aria-label="Subscriptions">
        <Table<SubscriptionView>
          rowKey="id"
          size="small"
          pagination={false}
          dataSource={subscriptions}
          locale={{ emptyText: 'No subscriptions' }}
          expandable={{ expandedRowRender: (row) => <SubscriptionHistory subscriptionId={row.id} /> }}
          columns={[
            { title: 'Product', dataIndex: 'title' },
            { title: 'Period', dataIndex: 'period' },
            { title: 'Price', dataIndex: 'price', render: (price: number) => formatUsd(price) },
            {
              title: 'State',
              dataIndex: 'state',
              render: (state: SubscriptionView['state']) => (
                <Tag color={STATE_COLOURS[state]}>{STATE_TEXT[state]}</Tag>
              ),
            },
            {
              // A subscription scheduled to end does not renew: the date is when it ends.
              title: 'Renews or ends',
              dataIndex: 'current_period_ends_at',
              render: (value: string, row: SubscriptionView) => (
                <>
                  {row.state === 'pending_cancel' ? 'Ends ' : row.state === 'canceled' ? 'Ended ' : 'Renews '}
                  <DateText value={value} />
                </>
              ),
            },
            ...(owner
              ? [
                  {
                    title: '',
                    key: 'actions',
                    // The Free plan charges nothing, so it has nothing to cancel; an ended subscription has no
                    // action left (a new one is bought from /plan or /pricings).
                    render: (_: unknown, row: SubscriptionView) =>
                      isFreePlan(row) || row.state === 'canceled' ? null : row.state === 'active' ||
                        row.state === 'past_due' ? (
                        <Popconfirm
                          title={`Cancel ${row.title}?`}
                          okText="Cancel subscription"
                          onConfirm={() => act(() => cancel.mutateAsync(row.id))}
                        >
                          <Button type="link" danger>
                            Cancel
                          </Button>
                        </Popconfirm>
                      ) : (
                        <Button type="link" onClick={() => void act(() => reactivate.mutateAsync(row.id))}>
                          Reactivate
                        </Button>
                      ),
                  },
                ]
              : []),
          ]}
        />
      </section>
    </Card>
  );
}

const isFreePlan = (row: SubscriptionView) => row.kind === 'plan' && row.product_handle === FREE_PLAN_HANDLE;

function SubscriptionHistory({ subscriptionId }: { subscriptionId: string }) {
  const events = useSubscriptionEvents(subscriptionId);
  if (events.isPending) return <PageSpinner />;
  if (events.error) return <Alert type="error" showIcon title={describeError(events.error)} />;
  return (
    <List
      size="small"
      header="History"
      dataSource={events.data}
      renderItem={(event) => (
        <List.Item>
          <Space>
            <DateText value={event.created_at} />
            <span>{event.type}</span>
            {event.author && <Typography.Text type="secondary">{event.author}</Typography.Text>}
          </Space>
        </List.Item>
      )}
    />
  );
}
