import { z } from 'zod';
import { messages } from './messages.ts';
import { text } from './text.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from './validation.ts';

/**
 * Billing: plans, add-on packages, payment profiles (cards), subscriptions, coupons and quotas (spec 002 §3, §4,
 * §7 Billing, §9; spec 001 §4 billing alert, §5 quota and card rules, §7 billing payloads). The server is the rule
 * (modules/billing); the web reads these to draw the same limits and words.
 */

const GiB = 1024 ** 3;
const TiB = 1024 ** 4;

/** The quotas an organisation holds (spec 002 §3 "Quota"), counted in bytes. */
export const QUOTA_KEYS = ['fc', 'encoding', 's3_native', 'wasabi', 's3_acceleration', 'c2c'] as const;
export type QuotaKey = (typeof QUOTA_KEYS)[number];
/** A quota total of -1 is unlimited (spec 002 §3). */
export const QUOTA_UNLIMITED = -1;

/**
 * What an organisation in trial (no card on file) may move before it adds one. The spec leaves the figures out;
 * these let a new organisation try every path on real data without running up a bill nobody agreed to.
 */
export const TRIAL_QUOTAS: Record<QuotaKey, number> = {
  fc: 10 * GiB,
  encoding: 5 * GiB,
  s3_native: 10 * GiB,
  wasabi: 10 * GiB,
  s3_acceleration: 10 * GiB,
  c2c: 10 * GiB,
};

export const BILLING_PERIODS = ['monthly', 'annually'] as const;
export type BillingPeriod = (typeof BILLING_PERIODS)[number];

/** The free plan's handle: new card subscriptions use it (spec 001 §7, spec 002 §9). */
export const FREE_PLAN_HANDLE = 'free';
/** New card subscriptions bill in the USA (spec 002 §9). */
export const BILLING_COUNTRY = 'USA';
/** Each user an organisation adds costs this much a month (spec 002 §5, §9). */
export const SEAT_PRICE_MONTHLY = 8;
/** Cloud-to-cloud bytes beyond a plan's inclusion cost this per GB on the transfer package (spec 002 §9). */
export const TRANSFER_PACKAGE_PER_GB = 0.05;

export interface PlanDefinition {
  /** Null for a plan sold by quote: choosing it opens a quote request (spec 002 §4). */
  handle: string | null;
  title: string;
  order: number;
  subscription_fee_monthly: number;
  sub_title: string;
  pre_description: string;
  /** Lines of the plan card (spec 002 §3: split on newlines). */
  description: string;
  action_text: string;
  /** Bytes included each month per quota; -1 unlimited; a quota not named is unlimited once a card is on file. */
  included: Partial<Record<QuotaKey, number>>;
  /** Price per GB of cloud-to-cloud bytes beyond the inclusion. */
  c2c_overage_per_gb: number;
  /** Whether the plan includes native S3 uploads (/S3Direct, spec 001 §6). */
  has_s3_native: boolean;
}

/** The plans of /plan in upgrade order (spec 002 §3 "Plan", §9 prices). */
export const PLANS: readonly PlanDefinition[] = [
  {
    handle: FREE_PLAN_HANDLE,
    title: 'Free',
    order: 1,
    subscription_fee_monthly: 0,
    sub_title: 'Pay as you go',
    pre_description: 'Includes',
    description:
      '500 GB of cloud-to-cloud transfer each month\n$0.15 per GB after that\nDirect and accelerated uploads',
    action_text: 'Choose Free',
    included: { c2c: 500 * GiB },
    c2c_overage_per_gb: 0.15,
    has_s3_native: true,
  },
  {
    handle: 'professional',
    title: 'Professional',
    order: 2,
    subscription_fee_monthly: 99,
    sub_title: 'For teams that move data every day',
    pre_description: 'Everything in Free, plus',
    description:
      '2 TB of cloud-to-cloud transfer each month\n$0.05 per GB after that\n50 GB of encoding each month',
    action_text: 'Upgrade',
    included: { c2c: 2 * TiB, encoding: 50 * GiB },
    c2c_overage_per_gb: TRANSFER_PACKAGE_PER_GB,
    has_s3_native: true,
  },
  {
    handle: null,
    title: 'Enterprise',
    order: 3,
    subscription_fee_monthly: 0,
    sub_title: 'Bulk licences and volume pricing',
    pre_description: 'Everything in Professional, plus',
    description: 'Volume transfer pricing\nA named contact\nInvoiced billing',
    action_text: 'Request a quote',
    included: {},
    c2c_overage_per_gb: TRANSFER_PACKAGE_PER_GB,
    has_s3_native: true,
  },
];

export const PACKAGE_HANDLES = ['analytics', 'finance', 'litemam', 'ftx', 'hybrik'] as const;
export type PackageHandle = (typeof PACKAGE_HANDLES)[number];

export interface PackageDefinition {
  handle: PackageHandle;
  /** The title modules and the profile's packages[] name it by (spec 002 §1, §3). */
  title: string;
  description: string;
  price_monthly: number;
  price_annually: number;
}

/** The add-on packages of /pricings: each 20 monthly or 199 annually (spec 001 §9, spec 002 §9). */
export const PACKAGES: readonly PackageDefinition[] = [
  {
    handle: 'analytics',
    title: 'Analytics',
    description: 'Monthly cost and usage dashboards for every connected cloud account.',
    price_monthly: 20,
    price_annually: 199,
  },
  {
    handle: 'finance',
    title: 'Finance',
    description: 'Budgets against actual spending, alerts and the activity log.',
    price_monthly: 20,
    price_annually: 199,
  },
  {
    handle: 'litemam',
    title: 'LiteMAM',
    description: 'Advanced media search by metadata across your buckets.',
    price_monthly: 20,
    price_annually: 199,
  },
  {
    handle: 'ftx',
    title: 'ftX',
    description: 'Accelerated transfers between your machines and the cloud through the ftX agent.',
    price_monthly: 20,
    price_annually: 199,
  },
  {
    handle: 'hybrik',
    title: 'Hybrik',
    description: 'A second transcoding service with your own job profiles.',
    price_monthly: 20,
    price_annually: 199,
  },
];

export function packageByHandle(handle: string): PackageDefinition | undefined {
  return PACKAGES.find((p) => p.handle === handle);
}
export function planByHandle(handle: string): PlanDefinition | undefined {
  return PLANS.find((p) => p.handle === handle);
}

/** Texts of spec 001 §5/§8 and spec 002 §4/§5/§8 for billing and quotas. */
export const billingMessages = {
  subscribed: 'Subscribed successfully',
  subscribedTo: (plan: string) => `Subscribed to ${plan} successfully.`,
  cardAdded: 'Credit Card Added Successfully',
  cardFailed: 'Could not add Credit Card',
  cardRemoved: 'Credit Card Removed Successfully',
  /** Not in the spec: "Make default" on a saved card, and a card saved twice. */
  cardMadeDefault: (masked: string) => `${masked} is now the default card.`,
  cardAlreadySaved: 'This card is already saved: replace it to change its details.',
  /** Not in the spec: the Free plan charges nothing, so there is nothing to cancel. */
  freePlanNotCancelable: 'The Free plan costs nothing and has nothing to cancel.',
  cancelScheduled: (date: string) => `Your subscription ends on ${date}.`,
  reactivated: 'Your subscription continues.',
  noCards: 'No Credit Cards Added',
  requestSent: 'Request has been sent to the owner',
  requestSendOk: 'Request send successfully',
  messageSent: 'Your message is sent successfully.',
  /** The request forms' empty message (the web's form says it before the server would). */
  enterMessage: 'Please enter a message.',
  requestFailed: 'Could not send activation request to the owner',
  cardNumber: 'Please input correct card number',
  cardName: 'Please input your name',
  cardExpiry: 'Please input valid expiry date',
  cardCvc: 'Please input valid cvc',
  fillRequired: 'Please fill required fields',
  setPaymentMethod: 'Set payment method',
  transfersQuotaTitle: 'Transfers Quota Limit',
  encodingQuotaTitle: 'Encoding Quota Limit',
  /** The quota refusal's body: what is left, and who can lift the limit (spec 001 §5). */
  quotaRemaining: (remaining: string) =>
    `You have ${remaining} of your quota remaining. Please contact your administrator to add a credit card.`,
  ownerOnly: 'Only the Owner of the organisation can change its plan, packages or cards.',
  downgrade: 'To move to a smaller plan, please contact support.',
  quoteNeeded: 'This plan is sold by quote: send us a request and we will contact you.',
  alreadyHeld: 'Your organisation already holds this package.',
  samePlan: 'Your organisation is already on this plan.',
  couponInvalid: 'This coupon code is not valid.',
  unknownProduct: 'There is no plan or package with this name.',
  notPlan: 'Only a plan subscription changes plan.',
  notScheduledToEnd: 'This subscription is not scheduled to end.',
  alreadyCanceled: 'This subscription has ended.',
  badSignature: 'The webhook signature is not valid.',
  noCardForSubscription: 'Add a credit card first.',
  cbsNoPurchase: 'Packages are managed for your organisation by your provider.',
  userAddNeedsCard: 'You need to add a credit card in order to add users.',
} as const;

// ——— Card form rules (spec 001 §5, spec 002 §5) ———

/** Spaces removed from the number (spec 001 §5). */
export function normaliseCardNumber(value: string): string {
  return value.replace(/\s+/g, '');
}

/** Spaces and slashes removed from the expiry; the first two digits are the month, the next two the year. */
export function parseCardExpiry(value: string): { month: number; year: number } | null {
  const digits = value.replace(/[\s/]+/g, '');
  if (!/^\d{4}$/.test(digits)) return null;
  const month = Number(digits.slice(0, 2));
  const year = 2000 + Number(digits.slice(2, 4));
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** The Luhn check every card number passes. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** An expiry is valid through the last day of its month. */
export function expiryInFuture(month: number, year: number, now = new Date()): boolean {
  return year > now.getUTCFullYear() || (year === now.getUTCFullYear() && month >= now.getUTCMonth() + 1);
}

export const CARD_BRANDS = [
  'visa',
  'master',
  'american_express',
  'discover',
  'diners_club',
  'jcb',
  'unknown',
] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

/** A brand as people name it. */
export const CARD_BRAND_NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  master: 'Mastercard',
  american_express: 'American Express',
  discover: 'Discover',
  diners_club: 'Diners Club',
  jcb: 'JCB',
  unknown: 'Card',
};

/**
 * A brand as a gateway or an older row names it, in the spec's card_type words: Stripe says 'mastercard', 'amex'
 * and 'diners' where the spec says 'master', 'american_express' and 'diners_club'; a brand the spec has no word
 * for (UnionPay, Cartes Bancaires) is 'unknown'.
 */
export function cardBrandNamed(name: string): CardBrand {
  const known: Record<string, CardBrand> = {
    mastercard: 'master',
    amex: 'american_express',
    diners: 'diners_club',
  };
  const brand = known[name.toLowerCase()] ?? name.toLowerCase();
  return (CARD_BRANDS as readonly string[]).includes(brand) ? (brand as CardBrand) : 'unknown';
}

/** A card as the audit trail names it, e.g. 'Visa •••• 4242': never more of its number than the last 4 digits. */
export const cardLabel = (brand: string, last4: string) =>
  `${CARD_BRAND_NAMES[cardBrandNamed(brand)]} •••• ${last4}`;

/** The card's brand from its number (the card_type of a payment profile, spec 002 §3). */
export function cardBrand(digits: string): CardBrand {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'master';
  if (/^3[47]/.test(digits)) return 'american_express';
  if (/^(6011|65|64[4-9])/.test(digits)) return 'discover';
  if (/^3(0[0-5]|[68])/.test(digits)) return 'diners_club';
  if (/^35(2[89]|[3-8])/.test(digits)) return 'jcb';
  return 'unknown';
}

/** A CVC: 4 digits for American Express, 3 for the others. */
export function cvcValid(cvc: string, brand: CardBrand): boolean {
  return brand === 'american_express' ? /^\d{4}$/.test(cvc) : /^\d{3}$/.test(cvc);
}

/** What a payment profile shows of a card: its last 4 digits behind a mask (spec 002 §3 masked_card_number). */
export function maskCardNumber(last4: string): string {
  return `XXXX-XXXX-XXXX-${last4}`;
}

// ——— Calls (spec 002 §7 Billing; spec 001 §7) ———

const cardNumberField = text({ error: billingMessages.cardNumber, max: 40 })
  .transform(normaliseCardNumber)
  .refine(luhnValid, billingMessages.cardNumber);
const monthField = z.coerce
  .number({ error: billingMessages.cardExpiry })
  .int(billingMessages.cardExpiry)
  .min(1, billingMessages.cardExpiry)
  .max(12, billingMessages.cardExpiry);
const yearField = z.coerce
  .number({ error: billingMessages.cardExpiry })
  .int(billingMessages.cardExpiry)
  .min(2000, billingMessages.cardExpiry)
  .max(2200, billingMessages.cardExpiry);
const billingText = (max = 255) => text({ max }).optional().default('');

/**
 * The credit card payload of spec 002 §7 (billing_* fields, payment_type credit_card, full_number, expiration,
 * names) plus the CVC the card form asks for (spec 001 §5). The number and CVC are passed to the gateway and never
 * stored: a payment profile keeps brand, last 4 digits and expiry.
 */
export const creditCardAttributes = z
  .object({
    full_number: cardNumberField,
    cvv: text({ error: billingMessages.cardCvc, max: 8 })
      .transform((v) => v.trim())
      .optional(),
    expiration_month: monthField,
    expiration_year: yearField,
    first_name: text({ error: billingMessages.cardName, max: 100, trim: true }).min(
      1,
      billingMessages.cardName,
    ),
    last_name: text({ max: 100, trim: true }).optional().default(''),
    billing_address: billingText(),
    billing_address_2: billingText(),
    billing_city: billingText(100),
    billing_state: billingText(100),
    billing_zip: billingText(20),
    billing_country: billingText(100),
    payment_type: z.literal('credit_card').optional().default('credit_card'),
  })
  .superRefine((card, ctx) => {
    const brand = cardBrand(card.full_number);
    if (card.cvv !== undefined && !cvcValid(card.cvv, brand))
      ctx.addIssue({ code: 'custom', path: ['cvv'], message: billingMessages.cardCvc });
    if (!expiryInFuture(card.expiration_month, card.expiration_year))
      ctx.addIssue({ code: 'custom', path: ['expiration_month'], message: billingMessages.cardExpiry });
  });
export type CreditCardAttributes = z.infer<typeof creditCardAttributes>;

/** POST /billing/payment_profiles, PUT|POST /billing/payment_profiles/{id}: a card, optionally made the default. */
export const paymentProfileBody = z.object({
  credit_card_attributes: creditCardAttributes,
  default: z.boolean().optional(),
});

export const paymentProfileView = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  masked_card_number: z.string(),
  expiration_month: z.number(),
  expiration_year: z.number(),
  card_type: z.enum(CARD_BRANDS),
  default: z.boolean(),
  created_at: z.string(),
});
export type PaymentProfileView = z.infer<typeof paymentProfileView>;
export const paymentProfilesAnswer = z.object({ billing_payment_profiles: z.array(paymentProfileView) });
/** What adding or replacing a card answers: the toast and the card as kept (masked). */
export const paymentProfileAnswer = z.object({ message: z.string(), payment_profile: paymentProfileView });

const handleField = text({ max: 100 }).min(1);
const couponField = text({ max: 100, trim: true }).optional();

/**
 * POST /billing/subscriptions/ — subscribe the caller's organisation to a plan (by handle) or a package. A card
 * is needed unless one is on file; the body may carry one (the subscription modal's card form, spec 002 §4).
 */
export const createSubscriptionBody = z.object({
  product_handle: handleField,
  period: z.enum(BILLING_PERIODS).optional().default('monthly'),
  coupon_code: couponField,
  credit_card_attributes: creditCardAttributes.optional(),
});
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;

/**
 * POST /billing/desktop/subscriptions/new_customer — spec 001 §7 / spec 002 §3 "Subscription payload": a new
 * customer of the desktop agent subscribes to the free plan with a card, signed out (/desktopbilling).
 */
export const newCustomerSubscriptionBody = z.object({
  customer_subscription: z.object({
    subscription: z.object({
      product_handle: handleField,
      coupon_code: couponField,
      customer_attributes: z.object({
        first_name: text({ error: billingMessages.cardName, max: 100, trim: true }).min(
          1,
          billingMessages.cardName,
        ),
        last_name: text({ max: 100, trim: true }).optional().default(''),
        // The sign-up form's e-mail rule: bounded, lower-cased, so an address that has an account is found.
        email: text({
          error: messages.emailRequired,
          trim: true,
          max: EMAIL_MAX_LENGTH,
          maxMessage: messages.emailInvalid,
        })
          .min(1, messages.emailRequired)
          .regex(EMAIL_PATTERN, messages.emailInvalid)
          .transform((v) => v.toLowerCase()),
      }),
      credit_card_attributes: creditCardAttributes,
    }),
  }),
});

export const SUBSCRIPTION_STATES = ['active', 'past_due', 'pending_cancel', 'canceled'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

export const subscriptionView = z.object({
  id: z.string(),
  kind: z.enum(['plan', 'package']),
  product_handle: z.string(),
  title: z.string(),
  period: z.enum(BILLING_PERIODS),
  state: z.enum(SUBSCRIPTION_STATES),
  price: z.number(),
  coupon_code: z.string().nullable(),
  current_period_started_at: z.string(),
  current_period_ends_at: z.string(),
  canceled_at: z.string().nullable(),
  created_at: z.string(),
});
export type SubscriptionView = z.infer<typeof subscriptionView>;
/** What a subscription change answers: the toast and the subscription as it now is. */
export const subscriptionAnswer = z.object({ message: z.string(), subscription: subscriptionView });

/** GET /billing/events/subscription/{id}: the subscription's append-only history, oldest first. */
export const subscriptionEventView = z.object({
  id: z.string(),
  type: z.string(),
  created_at: z.string(),
  author: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export const subscriptionEventsAnswer = z.object({ events: z.array(subscriptionEventView) });

export const planView = z.object({
  handle: z.string().nullable(),
  title: z.string(),
  order: z.number(),
  subscription_fee_monthly: z.number(),
  sub_title: z.string(),
  pre_description: z.string(),
  description: z.string(),
  action_text: z.string(),
  current: z.boolean(),
});
/** GET /billing/products: the plans, in order. */
export const productsAnswer = z.object({ plans: z.array(planView) });

export const packageView = z.object({
  id: z.string(),
  handle: z.enum(PACKAGE_HANDLES),
  title: z.string(),
  description: z.string(),
  price_monthly: z.number(),
  price_annually: z.number(),
  /** Held by the organisation (an active subscription, or BILLING_ENTITLE_ALL). */
  active: z.boolean(),
  subscription_id: z.string().nullable(),
  period: z.enum(BILLING_PERIODS).nullable(),
});
export type PackageView = z.infer<typeof packageView>;
/** GET /packages. */
export const packagesAnswer = z.object({ packages: z.array(packageView) });

export const quotaUsage = z.object({ used: z.number(), total: z.number() });
export type QuotaUsage = z.infer<typeof quotaUsage>;

/** GET /billing/billing_info (spec 002 §3 "Billing info: plan, subscription_id"). */
export const billingInfoView = z.object({
  plan: planView.nullable(),
  subscription_id: z.string().nullable(),
  has_billing_info: z.boolean(),
  in_trial: z.boolean(),
  gateway: z.enum(['manual', 'stripe']),
  subscriptions: z.array(subscriptionView),
  quota: z.record(z.enum(QUOTA_KEYS), quotaUsage),
  /** Members beyond the first, each billed SEAT_PRICE_MONTHLY with the plan. */
  seats: z.number().int(),
});
export type BillingInfoView = z.infer<typeof billingInfoView>;

export const couponView = z.object({
  code: z.string(),
  valid: z.boolean(),
  percent_off: z.number().nullable(),
  amount_off: z.number().nullable(),
  message: z.string(),
});

/** PUT /billing/subscriptions/{id}/product_change/{productId}: upgrades only (spec 002 §4). */
export const productChangeParams = z.object({ id: z.uuid(), productId: handleField });

/** POST /packages/request_quote {message, package_id} (spec 002 §7). */
export const requestQuoteBody = z.object({
  message: text({ max: 2000, trim: true }).min(1, 'Please enter a message.'),
  package_id: text({ max: 100 }).optional(),
});
/** POST /packages/request_service {service_name, plan}: a member asks the Owner for a package. */
export const requestServiceBody = z.object({
  service_name: handleField,
  plan: z.enum(BILLING_PERIODS).optional().default('monthly'),
});
/** POST /quota/request_extension {message}: a member asks the Owner for more quota. */
export const quotaExtensionBody = z.object({
  message: text({ max: 2000, trim: true }).min(1, 'Please enter a message.'),
});

/** Usage bar rules (spec 002 §9): under 1 % is drawn as 2 %, green below 3 %, red above 80 %. */
export function usageBar(used: number, total: number): { percent: number; colour: 'green' | 'blue' | 'red' } {
  if (total === QUOTA_UNLIMITED) return { percent: 0, colour: 'green' };
  const raw = total <= 0 ? 100 : (used / total) * 100;
  const percent = raw < 1 ? 2 : Math.min(100, raw);
  return { percent, colour: raw < 3 ? 'green' : raw > 80 ? 'red' : 'blue' };
}

/** What is left of a quota in bytes; Infinity when unlimited. */
export function quotaRemaining(usage: QuotaUsage): number {
  return usage.total === QUOTA_UNLIMITED ? Number.POSITIVE_INFINITY : Math.max(0, usage.total - usage.used);
}
