import { Alert, Card, Result, Typography } from 'antd';
import { Link, useParams } from 'react-router';
import { BUCKET_CREATION_PROVIDERS, type ProviderName } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { ProviderLogo, isProviderName } from '../../ui/ProviderLogo.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { AccountNotFound } from '../providers/AccountNotFound.tsx';
import { ManagersOnly, canManageAccounts } from '../providers/ManagersOnly.tsx';
import { ScreenHeader } from '../providers/ScreenHeader.tsx';
import { useCloudAccounts } from '../providers/providers-api.ts';
import { CREATE_BUCKET_TITLE, CreateBucketWizard } from './CreateBucketWizard.tsx';

export const AWS_AND_WASABI_ONLY = 'Bucket creation is offered only for AWS and Wasabi accounts.';

const canCreateBuckets = (provider: string): provider is ProviderName =>
  isProviderName(provider) && BUCKET_CREATION_PROVIDERS.includes(provider);

/**
 * /addBucket/{provider?}/{id?} (also /addBucket/{accountTypeId}/{cloudAccountId}): the account comes from the id;
 * its stored provider decides the steps, so either spelling of the first parameter works.
 */
export function AddBucketPage() {
  useDocumentTitle(CREATE_BUCKET_TITLE);
  const { id } = useParams();
  const profile = useProfile();
  const accounts = useCloudAccounts();

  if (profile.isPending || accounts.isPending) return <PageSpinner />;
  if (!canManageAccounts(profile.data?.role.title)) {
    return <ManagersOnly title="Only Owners and Admins can create buckets." />;
  }
  if (accounts.isError) return <Alert type="error" showIcon title={describeError(accounts.error)} />;

  if (!id) {
    const eligible = accounts.data.filter((a) => canCreateBuckets(a.provider));
    return (
      <Card>
        <ScreenHeader title={CREATE_BUCKET_TITLE} exitLabel="Cancel" />
        {eligible.length === 0 ? (
          <Result
            status="info"
            title="Connect an AWS or Wasabi account first"
            subTitle={AWS_AND_WASABI_ONLY}
            extra={<Link to="/addProvider">Set up a cloud provider</Link>}
          />
        ) : (
          <>
            <Typography.Paragraph>Choose the account for the new bucket:</Typography.Paragraph>
            <ul>
              {eligible.map((account) => (
                <li key={account.id} style={{ marginBottom: 8 }}>
                  <Link to={`/addBucket/${account.provider}/${account.id}`}>
                    {isProviderName(account.provider) && (
                      <ProviderLogo provider={account.provider} height={20} style={{ marginRight: 8 }} />
                    )}
                    {account.name}
                  </Link>
                </li>
              ))}
            </ul>
          </>
        )}
      </Card>
    );
  }

  const account = accounts.data.find((a) => a.id === id);
  if (!account) return <AccountNotFound />;
  if (!canCreateBuckets(account.provider)) {
    return (
      <Result
        status="info"
        title={AWS_AND_WASABI_ONLY}
        subTitle={`${account.name} is not an AWS or Wasabi account; create its buckets in the provider's own console.`}
        extra={<Link to="/">Back to the dashboard</Link>}
      />
    );
  }
  return <CreateBucketWizard key={account.id} account={account} provider={account.provider} />;
}
