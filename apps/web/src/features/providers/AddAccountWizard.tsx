import { useState } from 'react';
import { Alert, App, Button, Card, Flex, Steps, Tabs } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { CloudAccountView, ProviderName } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { PROVIDER_TITLES, ProviderLogo, isProviderName } from '../../ui/ProviderLogo.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { AccessForm } from './AccessForm.tsx';
import { BILLING_STEP_TITLE, BillingBucketStep } from './BillingBucketStep.tsx';
import { ProviderPicker } from './ProviderPicker.tsx';
import { ScreenHeader } from './ScreenHeader.tsx';
import { SomethingWentWrong } from './SomethingWentWrong.tsx';
import { WasabiCreateForm } from './WasabiCreateForm.tsx';
import {
  accountSaveState,
  emptyAccountForm,
  type AccountField,
  type AccountFormValues,
} from './account-form.ts';
import { connectAccount, useAccessInfo, useCloudAccounts } from './providers-api.ts';

export const ADD_PROVIDER_TITLE = 'Set Up a New Cloud Provider';
const FIRST_ACCOUNT_PATH = '/onboard/firstAccount';

type Step = 'choose' | 'access' | 'billing';
type WasabiTab = 'add' | 'create';

interface AddAccountWizardProps {
  /** The :provider route parameter: preselects the provider and opens step 2. */
  providerParam: string | undefined;
  /** The onboarding variant goes on to /onboard/firstAccount after a first account. */
  onboarding: boolean;
}

/** Add a cloud account: choose a provider, set up access, and for aws the billing bucket (spec 000 §2). */
export function AddAccountWizard({ providerParam, onboarding }: AddAccountWizardProps) {
  const accessInfo = useAccessInfo();
  if (accessInfo.isPending) return <PageSpinner />;
  if (accessInfo.isError) {
    return <Alert type="error" showIcon title={describeError(accessInfo.error)} />;
  }
  return (
    <Wizard
      allowed={accessInfo.data.providers}
      wasabiCreate={accessInfo.data.wasabiCreate}
      providerParam={providerParam}
      onboarding={onboarding}
    />
  );
}

function Wizard({
  allowed,
  wasabiCreate,
  providerParam,
  onboarding,
}: AddAccountWizardProps & {
  allowed: ProviderName[];
  wasabiCreate: { enabled: boolean; message: string };
}) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const accounts = useCloudAccounts();

  const preselected = isProviderName(providerParam) && allowed.includes(providerParam) ? providerParam : null;
  const [provider, setProvider] = useState<ProviderName | null>(preselected);
  const [step, setStep] = useState<Step>(preselected ? 'access' : 'choose');
  const [values, setValues] = useState<AccountFormValues>(() => emptyAccountForm(preselected));
  const [touched, setTouched] = useState<ReadonlySet<AccountField>>(new Set());
  const [wasabiTab, setWasabiTab] = useState<WasabiTab>('add');
  const [created, setCreated] = useState<CloudAccountView | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [doneTo, setDoneTo] = useState('/');

  const choose = (next: ProviderName) => {
    // Selecting a provider clears the form (spec 000 §4).
    setProvider(next);
    setValues(emptyAccountForm(next));
    setTouched(new Set());
    setWasabiTab('add');
    setStep('access');
  };

  /** Where the flow ends: the onboarding variant celebrates a first account on its own page. */
  const destinationAfterCreate = () => (onboarding && accounts.data?.length === 0 ? FIRST_ACCOUNT_PATH : '/');

  const finishCreate = async (account: CloudAccountView, name: string) => {
    void message.success(`${name} added successfully`);
    const destination = destinationAfterCreate();
    await queryClient.invalidateQueries({ queryKey: queryKeys.accounts });
    if (account.provider === 'aws') {
      setCreated(account);
      setDoneTo(destination);
      setStep('billing');
    } else {
      navigate(destination);
    }
  };

  const save = useMutation({
    mutationFn: (input: { provider: ProviderName; values: AccountFormValues }) =>
      connectAccount(input.provider, input.values),
    onSuccess: (account, input) => finishCreate(account, input.values.name.trim()),
    onError: (error) => setFailure(describeError(error)),
  });

  const saveState = provider ? accountSaveState(provider, values) : null;
  const notAllowed =
    isProviderName(providerParam) && !allowed.includes(providerParam) ? PROVIDER_TITLES[providerParam] : null;

  const stepIndex = step === 'choose' ? 0 : step === 'access' ? 1 : 2;
  const stepItems = [
    { title: 'Choose a Provider', disabled: step === 'billing' },
    { title: 'Set Up Access', disabled: provider === null || step === 'billing' },
    ...(provider === 'aws' ? [{ title: BILLING_STEP_TITLE, disabled: true }] : []),
  ];

  const accessForm = provider && (
    <>
      <AccessForm
        provider={provider}
        values={values}
        touched={touched}
        onChange={(patch) => setValues((current) => ({ ...current, ...patch }))}
        onTouch={(field) => setTouched((current) => new Set(current).add(field))}
      />
      <Flex gap={12}>
        <Button onClick={() => setStep('choose')}>Back</Button>
        <Button
          type="primary"
          disabled={!saveState?.canSave}
          loading={save.isPending}
          onClick={() => save.mutate({ provider, values })}
        >
          Save
        </Button>
      </Flex>
    </>
  );

  return (
    <Card>
      <ScreenHeader title={ADD_PROVIDER_TITLE} exitLabel="Close" />
      <Steps
        current={stepIndex}
        items={stepItems}
        onChange={(index) => {
          if (index === 0) setStep('choose');
          else if (index === 1 && provider) setStep('access');
        }}
        style={{ marginBottom: 32 }}
      />
      {step === 'choose' && (
        <>
          {notAllowed && (
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 16 }}
              title={`${notAllowed} accounts are not available for your organisation.`}
            />
          )}
          <ProviderPicker providers={allowed} selected={provider} onSelect={choose} />
        </>
      )}
      {step === 'access' && provider && (
        <>
          <Flex align="center" gap={8} style={{ marginBottom: 16 }}>
            <ProviderLogo provider={provider} withName />
          </Flex>
          {provider === 'wasabi' ? (
            <Tabs
              activeKey={wasabiTab}
              onChange={(key) => setWasabiTab(key as WasabiTab)}
              items={[
                { key: 'add', label: 'Connect Existing Account', children: accessForm },
                {
                  key: 'create',
                  label: 'Create New Account',
                  children: (
                    <WasabiCreateForm
                      wasabiCreate={wasabiCreate}
                      onCreated={(account, name) => void finishCreate(account, name)}
                      onError={setFailure}
                    />
                  ),
                },
              ]}
            />
          ) : (
            accessForm
          )}
        </>
      )}
      {step === 'billing' && created && (
        <BillingBucketStep account={created} onSkip={() => navigate(doneTo)} onError={setFailure} />
      )}
      <SomethingWentWrong message={failure} onClose={() => setFailure(null)} />
    </Card>
  );
}
