import { useState } from 'react';
import { Alert, App, Button, Card, Col, Row, Segmented, Space, Tag, Typography } from 'antd';
import {
  billingMessages,
  formatUsd,
  packageByHandle,
  type BillingPeriod,
  type PackageDefinition,
  type PackageView,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { billingErrorText, isOwner, usePackages, useRequestService } from './billing-api.ts';
import { SubscriptionModal } from './SubscriptionModal.tsx';

const PERIOD_LABELS: Record<BillingPeriod, string> = { monthly: 'Monthly', annually: 'Annual' };

/**
 * /pricings (spec 002 §2, §6): the package cards with a Monthly/Annual switch. Owners 'Activate Now' through the
 * subscription modal, others 'Send Request' to the Owner; purchase is hidden for organisations flagged is_cbs.
 */
export function PricingsPage() {
  useDocumentTitle('Packages');
  const { message } = App.useApp();
  const profile = useProfile().data;
  const packages = usePackages();
  const requestService = useRequestService();
  const [period, setPeriod] = useState<BillingPeriod>('monthly');
  const [buying, setBuying] = useState<PackageDefinition | null>(null);
  const owner = isOwner(profile);
  const purchasable = profile !== undefined && !profile.organization.is_cbs;

  const sendRequest = async (pkg: PackageView) => {
    try {
      await requestService.mutateAsync({ service_name: pkg.handle, plan: period });
      void message.success(billingMessages.requestSent);
    } catch (error) {
      void message.error(billingErrorText(error, billingMessages.requestFailed));
    }
  };

  const action = (pkg: PackageView) => {
    if (pkg.active) return <Tag color="green">Active</Tag>;
    if (!purchasable) return null;
    if (owner) {
      const definition = packageByHandle(pkg.handle);
      return (
        <Button type="primary" onClick={() => setBuying(definition ?? null)}>
          Activate Now
        </Button>
      );
    }
    return (
      <Button loading={requestService.isPending} onClick={() => void sendRequest(pkg)}>
        Send Request
      </Button>
    );
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Packages
      </Typography.Title>
      <Segmented<BillingPeriod>
        aria-label="Billing period"
        value={period}
        onChange={setPeriod}
        options={(['monthly', 'annually'] as const).map((value) => ({ value, label: PERIOD_LABELS[value] }))}
      />
      {profile?.organization.is_cbs && <Alert type="info" showIcon title={billingMessages.cbsNoPurchase} />}
      {packages.isPending ? (
        <PageSpinner />
      ) : packages.error ? (
        <Alert type="error" showIcon title={describeError(packages.error)} />
      ) : (
        <Row gutter={[16, 16]}>
          {packages.data.map((pkg) => (
            <Col key={pkg.handle} xs={24} md={12} xl={8}>
              <Card
                title={pkg.title}
                role="region"
                aria-label={pkg.title}
                extra={pkg.active ? <Tag color="green">Active</Tag> : null}
                actions={[<span key="action">{action(pkg)}</span>]}
              >
                <Typography.Title level={3} style={{ marginTop: 0 }}>
                  {period === 'monthly'
                    ? `${formatUsd(pkg.price_monthly, 0)} / month`
                    : `${formatUsd(pkg.price_annually, 0)} / year`}
                </Typography.Title>
                <Typography.Paragraph style={{ margin: 0 }}>{pkg.description}</Typography.Paragraph>
              </Card>
            </Col>
          ))}
        </Row>
      )}
      {buying && <SubscriptionModal pkg={buying} initialPeriod={period} onClose={() => setBuying(null)} />}
    </Space>
  );
}
