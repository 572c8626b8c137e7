import { useState } from 'react';
import { Alert, App, Button, Card, Flex, Form, Input, Select, Typography } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { accountFormMessages, type CloudAccountView } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { PROVIDER_TITLES, ProviderLogo, isProviderName } from '../../ui/ProviderLogo.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { AccountNotFound } from './AccountNotFound.tsx';
import { ScreenHeader } from './ScreenHeader.tsx';
import { SomethingWentWrong } from './SomethingWentWrong.tsx';
import { updateAccount, useCloudAccounts, useLiveBuckets } from './providers-api.ts';

export const EDIT_PROVIDER_TITLE = 'Edit Cloud Provider';

/** Edit mode of /addProvider/{provider}/{id}: only the name (and an aws billing bucket) can change. */
export function EditAccount({ accountId }: { accountId: string }) {
  const accounts = useCloudAccounts();
  if (accounts.isPending) return <PageSpinner />;
  if (accounts.isError) return <Alert type="error" showIcon title={describeError(accounts.error)} />;
  const account = accounts.data.find((a) => a.id === accountId);
  if (!account) return <AccountNotFound />;
  return <EditAccountForm account={account} />;
}

/** The stored credentials as the list shows them: masked, never editable here. */
function credentialRows(account: CloudAccountView): Array<[string, string]> {
  const { info } = account;
  switch (account.provider) {
    case 'google':
      return [['Service Account Key', info.secret_key]];
    case 'azure':
      return [
        ['Storage account name', info.access_key],
        ['Account key', info.secret_key],
      ];
    default: {
      const rows: Array<[string, string]> = [
        ['Access Key', info.access_key],
        ['Secret Key', info.secret_key],
      ];
      if (info.region) rows.push(['Region', info.region]);
      const url = account.serviceUrl ?? info.endpoint;
      if (url && (account.provider === 'genericS3' || account.provider === 'filebase'))
        rows.push(['Service URL', url]);
      return rows;
    }
  }
}

function EditAccountForm({ account }: { account: CloudAccountView }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const isAws = account.provider === 'aws';
  const buckets = useLiveBuckets(isAws ? account.id : undefined);
  const [name, setName] = useState(account.name);
  const [nameTouched, setNameTouched] = useState(false);
  const [billingBucket, setBillingBucket] = useState<string | null>(account.billing_bucket);
  const [failure, setFailure] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: () =>
      updateAccount(account.id, {
        project_name: name.trim(),
        ...(isAws ? { billing_bucket: billingBucket } : {}),
      }),
    onSuccess: async (updated) => {
      void message.success(`${updated.name} updated successfully`);
      await queryClient.invalidateQueries({ queryKey: queryKeys.accounts });
      navigate('/');
    },
    onError: (error) => setFailure(describeError(error)),
  });

  const nameEmpty = name.trim() === '';
  const bucketOptions = (buckets.data ?? []).map((b) => ({ value: b.name, label: b.name }));
  if (billingBucket && !bucketOptions.some((o) => o.value === billingBucket)) {
    bucketOptions.unshift({ value: billingBucket, label: billingBucket });
  }

  return (
    <Card>
      <ScreenHeader title={EDIT_PROVIDER_TITLE} exitLabel="Close" />
      <Form layout="vertical" component="div" style={{ maxWidth: 560 }}>
        <Form.Item label="Provider">
          {isProviderName(account.provider) ? (
            <ProviderLogo provider={account.provider} withName />
          ) : (
            account.provider
          )}
        </Form.Item>
        <Form.Item
          label="Name"
          htmlFor="edit-account-name"
          required
          validateStatus={nameTouched && nameEmpty ? 'error' : undefined}
          help={nameTouched && nameEmpty ? accountFormMessages.name : undefined}
        >
          <Input
            id="edit-account-name"
            value={name}
            onChange={(event) => {
              setName(event.target.value);
              setNameTouched(true);
            }}
            onBlur={() => setNameTouched(true)}
          />
        </Form.Item>
        {credentialRows(account).map(([label, value]) => {
          const id = `edit-account-${label.toLowerCase().replaceAll(' ', '-')}`;
          return (
            <Form.Item key={label} label={label} htmlFor={id}>
              <Input id={id} value={value} disabled readOnly />
            </Form.Item>
          );
        })}
        {isAws && (
          <Form.Item
            label="Billing bucket"
            htmlFor="edit-billing-bucket"
            help={buckets.isError ? describeError(buckets.error) : undefined}
            validateStatus={buckets.isError ? 'warning' : undefined}
          >
            <Select
              id="edit-billing-bucket"
              allowClear
              showSearch
              placeholder="No billing bucket"
              loading={buckets.isPending}
              value={billingBucket ?? undefined}
              onChange={(value?: string) => setBillingBucket(value ?? null)}
              options={bucketOptions}
            />
          </Form.Item>
        )}
      </Form>
      <Flex gap={12} align="center">
        <Button type="primary" disabled={nameEmpty} loading={save.isPending} onClick={() => save.mutate()}>
          Save
        </Button>
        <Typography.Text type="secondary">
          The credentials of {isProviderName(account.provider) ? PROVIDER_TITLES[account.provider] : 'this'}{' '}
          account cannot be changed here; remove the account and connect it again to use new keys.
        </Typography.Text>
      </Flex>
      <SomethingWentWrong message={failure} onClose={() => setFailure(null)} />
    </Card>
  );
}
