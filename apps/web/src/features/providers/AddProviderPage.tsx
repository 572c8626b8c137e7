import type { ReactNode } from 'react';
import { Button, Card, Result } from 'antd';
import { useNavigate, useParams } from 'react-router';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { ADD_PROVIDER_TITLE, AddAccountWizard } from './AddAccountWizard.tsx';
import { EDIT_PROVIDER_TITLE, EditAccount } from './EditAccountForm.tsx';
import { ManagersOnly, canManageAccounts } from './ManagersOnly.tsx';

/** Only Owners and Admins connect or change accounts; Users get a short explanation instead. */
function ManagersGate({ children }: { children: ReactNode }) {
  const { data: profile, isPending } = useProfile();
  if (isPending) return <PageSpinner />;
  if (!canManageAccounts(profile?.role.title)) return <ManagersOnly />;
  return <>{children}</>;
}

/** /addProvider and /addProvider/{provider?}/{id?}: add a cloud account, or edit one when an id is given. */
export function AddProviderPage() {
  const { provider, id } = useParams();
  useDocumentTitle(id ? EDIT_PROVIDER_TITLE : ADD_PROVIDER_TITLE);
  return (
    <ManagersGate>
      {id ? (
        <EditAccount key={id} accountId={id} />
      ) : (
        // A new :provider (the Hybrid dropdown links here) starts the wizard afresh.
        <AddAccountWizard key={provider ?? ''} providerParam={provider} onboarding={false} />
      )}
    </ManagersGate>
  );
}

/**
 * /onboard/{type}: the add-provider screen in its onboarding variant (type preselects a provider, as
 * /addProvider/{provider} does); /onboard/firstAccount is where it ends after a first account.
 */
export function OnboardPage() {
  const { type } = useParams();
  const firstAccount = type === 'firstAccount';
  useDocumentTitle(firstAccount ? 'Your first cloud account' : ADD_PROVIDER_TITLE);
  if (firstAccount) return <FirstAccountConnected />;
  return (
    <ManagersGate>
      <AddAccountWizard key={type ?? ''} providerParam={type} onboarding />
    </ManagersGate>
  );
}

function FirstAccountConnected() {
  const navigate = useNavigate();
  return (
    <Card>
      <Result
        status="success"
        title="Your first cloud account is connected"
        subTitle="Cumulo is counting its buckets now; their sizes and costs appear on the dashboard as soon as the count finishes."
        extra={[
          <Button key="dashboard" type="primary" onClick={() => navigate('/')}>
            Go to the dashboard
          </Button>,
          <Button key="another" onClick={() => navigate('/onboard/cloud')}>
            Connect another account
          </Button>,
        ]}
      />
    </Card>
  );
}
