import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  FREE_PLAN_HANDLE,
  billingInfoView,
  packagesAnswer,
  paymentProfileAnswer,
  paymentProfilesAnswer,
  planByHandle,
  productsAnswer,
  subscriptionEventsAnswer,
  type BillingPeriod,
  type UserProfile,
} from '@cumulo/contract';
import { ApiError, api, fieldMessages } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import type { CardPayload } from './card-form.ts';

// Every screen of this folder shows its own failures (toasts or the quota modal): all calls are silent.

/**
 * Spec 002 §8: billing errors show the first payment-provider error, else the server's message; `fallback` when
 * the answer carries neither (a network failure).
 */
export function billingErrorText(error: unknown, fallback: string): string {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return fallback;
  const body = error.body as Record<string, unknown>;
  const providerErrors = body.chargify_errors;
  if (Array.isArray(providerErrors) && typeof providerErrors[0] === 'string' && providerErrors[0]) {
    return providerErrors[0];
  }
  if ('errors' in body || typeof body.message === 'string') return fieldMessages(body)[0] ?? fallback;
  return fallback;
}

/** The plan to show: the plan subscribed to, else 'Trial' without a card, else the free plan every card starts on. */
export function planTitle(plan: { title: string } | null | undefined, inTrial: boolean): string {
  if (plan) return plan.title;
  return inTrial ? 'Trial' : (planByHandle(FREE_PLAN_HANDLE)?.title ?? '');
}

export function isOwner(profile: UserProfile | undefined): boolean {
  return profile?.role.title === 'Owner';
}

/** The profile's package list names packages by title (spec 002 §3); a handle is accepted too. */
export function holdsPackage(profile: UserProfile, titleOrHandle: string): boolean {
  const wanted = titleOrHandle.toLowerCase();
  return profile.packages.some((held) => held.title.toLowerCase() === wanted);
}

export function usePaymentProfiles(enabled = true) {
  return useQuery({
    queryKey: queryKeys.paymentProfiles,
    queryFn: async () =>
      paymentProfilesAnswer.parse(await api.get('/billing/payment_profiles')).billing_payment_profiles,
    enabled,
  });
}

export function useBillingInfo() {
  return useQuery({
    queryKey: queryKeys.billingInfo,
    queryFn: async () => billingInfoView.parse(await api.get('/billing/billing_info')),
  });
}

export function useProducts() {
  return useQuery({
    queryKey: queryKeys.products,
    queryFn: async () => productsAnswer.parse(await api.get('/billing/products')).plans,
  });
}

export function usePackages() {
  return useQuery({
    queryKey: queryKeys.packages,
    queryFn: async () => packagesAnswer.parse(await api.get('/packages')).packages,
  });
}

export function useSubscriptionEvents(subscriptionId: string) {
  return useQuery({
    queryKey: queryKeys.subscriptionEvents(subscriptionId),
    queryFn: async () =>
      subscriptionEventsAnswer.parse(await api.get(`/billing/events/subscription/${subscriptionId}`)).events,
  });
}

/** After any change of cards, plans or packages the profile (packages, quota, has_billing_info) is read again. */
function useRefreshBilling() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.profile }),
      queryClient.invalidateQueries({ queryKey: queryKeys.billing }),
    ]);
}

/** POST /billing/payment_profiles: the new card becomes the default. */
export function useAddCard() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: (card: CardPayload) =>
      api.post(
        '/billing/payment_profiles',
        { credit_card_attributes: card, default: true },
        { silent: true },
      ),
    onSuccess: refresh,
  });
}

/** PUT /billing/payment_profiles/{id}: the card is replaced by a new one. */
export function useReplaceCard() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: ({ id, card }: { id: string; card: CardPayload }) =>
      api.put(`/billing/payment_profiles/${id}`, { credit_card_attributes: card }, { silent: true }),
    onSuccess: refresh,
  });
}

/** PUT /billing/payment_profiles/{id}/default: "Make default" (answers the toast). */
export function useMakeDefaultCard() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: async (id: string) =>
      paymentProfileAnswer.parse(
        await api.put(`/billing/payment_profiles/${id}/default`, undefined, { silent: true }),
      ),
    onSuccess: refresh,
  });
}

export function useRemoveCard() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/billing/payment_profiles/${id}`, { silent: true }),
    onSuccess: refresh,
  });
}

export interface SubscribeInput {
  product_handle: string;
  period: BillingPeriod;
  credit_card_attributes?: CardPayload;
}

/** POST /billing/subscriptions/ — a plan or a package; the body may carry the card the modal asked for. */
export function useSubscribe() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: (input: SubscribeInput) => api.post('/billing/subscriptions/', input, { silent: true }),
    onSuccess: refresh,
  });
}

/** PUT /billing/subscriptions/{id}/product_change/{handle}: upgrades only (spec 002 §4). */
export function useChangePlan() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: ({ subscriptionId, handle }: { subscriptionId: string; handle: string }) =>
      api.put(`/billing/subscriptions/${subscriptionId}/product_change/${handle}`, undefined, {
        silent: true,
      }),
    onSuccess: refresh,
  });
}

export function useCancelSubscription() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: (subscriptionId: string) =>
      api.delete(`/billing/subscriptions/${subscriptionId}`, { silent: true }),
    onSuccess: refresh,
  });
}

export function useReactivateSubscription() {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: (subscriptionId: string) =>
      api.put(`/billing/subscriptions/${subscriptionId}/reactivate`, undefined, { silent: true }),
    onSuccess: refresh,
  });
}

/** POST /packages/request_service: a member asks the Owner for a package (bell and e-mail on the server). */
export function useRequestService() {
  return useMutation({
    mutationFn: (input: { service_name: string; plan: BillingPeriod }) =>
      api.post('/packages/request_service', input, { silent: true }),
  });
}

/** POST /packages/request_quote: a plan sold by quote (spec 002 §4). */
export function useRequestQuote() {
  return useMutation({
    mutationFn: (input: { message: string; package_id?: string }) =>
      api.post('/packages/request_quote', input, { silent: true }),
  });
}

/** POST /quota/request_extension: a member asks the Owner for more quota. */
export function useRequestExtension() {
  return useMutation({
    mutationFn: (input: { message: string }) => api.post('/quota/request_extension', input, { silent: true }),
  });
}

export type ChargeFlag = 'confirmed_c2c' | 'confirmed_ftx' | 'confirmed_wasabi';

/**
 * Spec 001 §4 "Charge modal": the Owner's confirmation. A card typed in the modal is added first, then the flag is
 * set (PUT /organizations/_me) and the profile read again.
 */
export function useConfirmCharge(flag: ChargeFlag) {
  const refresh = useRefreshBilling();
  return useMutation({
    mutationFn: async (card: CardPayload | null) => {
      if (card)
        await api.post(
          '/billing/payment_profiles',
          { credit_card_attributes: card, default: true },
          { silent: true },
        );
      await api.put('/organizations/_me', { [flag]: true }, { silent: true });
    },
    onSettled: refresh,
  });
}
