import { Button, Flex, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { QUOTA_UNLIMITED, billingMessages, quotaRemaining, type UserProfile } from '@cumulo/contract';
import { useProfile } from '../profile/useProfile.ts';
import { isOwner } from './billing-api.ts';

/**
 * Spec 001 §4 names a threshold for the billing alert but leaves its value out: the banner shows once any quota
 * has a fifth or less of its total left, early enough to add a card before a transfer is refused.
 */
const PAYMENT_BANNER_REMAINING_SHARE = 0.2;

/** True when the organisation has no card and a counted quota is nearly used up. */
function needsPaymentMethod(profile: UserProfile): boolean {
  if (profile.has_billing_info) return false;
  return Object.values(profile.quota).some(
    (usage) =>
      usage.total !== QUOTA_UNLIMITED &&
      usage.total > 0 &&
      quotaRemaining(usage) <= usage.total * PAYMENT_BANNER_REMAINING_SHARE,
  );
}

const bannerTexts = {
  owner: 'Your organisation has almost used its trial quota. Add a payment method to keep transferring.',
  member:
    'Your organisation has almost used its trial quota. Please contact the Owner of your organisation to add a payment method.',
} as const;

/** The top gradient alert banner of spec 002 "Other shared UI", with spec 001 §4's 'Set payment method'. */
export function PaymentMethodBanner() {
  const profile = useProfile().data;
  const navigate = useNavigate();
  if (!profile || !needsPaymentMethod(profile)) return null;
  const owner = isOwner(profile);
  return (
    <Flex
      role="alert"
      align="center"
      justify="space-between"
      gap={16}
      style={{
        padding: '10px 24px',
        background: 'linear-gradient(90deg, #1668dc 0%, #722ed1 100%)',
        color: '#fff',
      }}
    >
      <Typography.Text style={{ color: 'inherit' }}>
        {owner ? bannerTexts.owner : bannerTexts.member}
      </Typography.Text>
      {owner && (
        <Button ghost onClick={() => void navigate('/billing/addcreditcard')}>
          {billingMessages.setPaymentMethod}
        </Button>
      )}
    </Flex>
  );
}
