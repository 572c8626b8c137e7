import { useState } from 'react';
import { App } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import type { CloudAccountView, SyncInsertBody } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { chargeConfirmed, isChargeRefusal } from '../migration/migration-api.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useCreateSync } from './sync-api.ts';

export interface BucketChoice {
  accountId: string | null;
  bucket: string | null;
}

const none: BucketChoice = { accountId: null, bucket: null };

/** As on the transfer screens (spec 001 §4): choosing an account picks its first bucket. */
function chooseAccount(accounts: readonly CloudAccountView[], accountId: string): BucketChoice {
  const account = accounts.find((candidate) => candidate.id === accountId);
  return { accountId, bucket: account?.storages[0]?.bucket_name ?? null };
}

interface ChosenBuckets {
  sourceAccountId: string;
  sourceBucket: string;
  destinationAccountId: string;
  destinationBucket: string;
}

/**
 * The state both creation screens share: the two account/bucket choices, the charge confirmation a job needs
 * like any transfer (spec 001 §6), and the POST /sync/insert with its toasts.
 */
export function useSyncForm() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const profile = useProfile().data;
  const accountsQuery = useCloudAccounts();
  const accounts = accountsQuery.data ?? [];
  const create = useCreateSync();
  const [source, setSource] = useState<BucketChoice>(none);
  const [destination, setDestination] = useState<BucketChoice>(none);
  const [chargeOpen, setChargeOpen] = useState(false);

  const chosen: ChosenBuckets | null =
    source.accountId && source.bucket && destination.accountId && destination.bucket
      ? {
          sourceAccountId: source.accountId,
          sourceBucket: source.bucket,
          destinationAccountId: destination.accountId,
          destinationBucket: destination.bucket,
        }
      : null;

  /** Sends the job; true when the server saved it. */
  const submit = async (body: SyncInsertBody): Promise<boolean> => {
    if (profile && !chargeConfirmed(profile)) {
      setChargeOpen(true);
      return false;
    }
    try {
      const answer = await create.mutateAsync(body);
      void message.success(answer.message);
      return true;
    } catch (error) {
      if (isChargeRefusal(error)) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
        setChargeOpen(true);
        return false;
      }
      void message.error(describeError(error));
      return false;
    }
  };

  const sourceProps = {
    accounts,
    loading: accountsQuery.isPending,
    accountId: source.accountId,
    bucket: source.bucket,
    onAccountChange: (id: string) => setSource(chooseAccount(accounts, id)),
    onBucketChange: (bucket: string) => setSource({ ...source, bucket }),
  };
  const destinationProps = {
    accounts,
    loading: accountsQuery.isPending,
    accountId: destination.accountId,
    bucket: destination.bucket,
    onAccountChange: (id: string) => setDestination(chooseAccount(accounts, id)),
    onBucketChange: (bucket: string) => setDestination({ ...destination, bucket }),
  };

  return {
    chosen,
    submit,
    saving: create.isPending,
    sourceProps,
    destinationProps,
    chargeOpen,
    closeCharge: () => setChargeOpen(false),
  };
}
