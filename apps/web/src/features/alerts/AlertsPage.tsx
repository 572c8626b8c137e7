import { Alert, Card, Empty, Form, Select, Space, Typography } from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { describeError } from '../../api/client.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { AccountAlerts } from './AccountAlerts.tsx';
import { GoBackLink } from './GoBackLink.tsx';
import { useCloudAccounts } from './alerts-api.ts';

export const ACCOUNT_NOT_FOUND = 'Cloud account not found';

/** /setAlert/{id?}/{name?} — size and cost alerts of an account, or of one of its buckets (spec 000 §2). */
export function AlertsPage() {
  useDocumentTitle('Alerts');
  const { id, name } = useParams();
  const accounts = useCloudAccounts();

  if (accounts.isPending) return <PageSpinner />;
  if (!accounts.data) return <Alert type="error" showIcon title={describeError(accounts.error)} />;

  if (!id) return <AccountChooser accounts={accounts.data} />;

  const account = accounts.data.find((candidate) => candidate.id === id);
  if (!account) {
    return (
      <Space orientation="vertical" size="middle">
        <GoBackLink />
        <Alert type="warning" showIcon title={ACCOUNT_NOT_FOUND} />
      </Space>
    );
  }
  return <AccountAlerts account={account} bucketName={name ?? null} />;
}

interface AccountChooserProps {
  accounts: readonly { id: string; name: string }[];
}

/** Without an account in the path the user picks one; the choice becomes /setAlert/{id}. */
function AccountChooser({ accounts }: AccountChooserProps) {
  const navigate = useNavigate();
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%', maxWidth: 560 }}>
      <GoBackLink />
      <Typography.Title level={2} style={{ margin: 0 }}>
        Set up notifications
      </Typography.Title>
      <Card>
        {accounts.length === 0 ? (
          <Empty description="You currently have no cloud accounts connected">
            <Link to="/addProvider">Add Your Cloud Account</Link>
          </Empty>
        ) : (
          <Form layout="vertical">
            <Form.Item label="Cloud account" htmlFor="alert-account" style={{ marginBottom: 0 }}>
              <Select
                id="alert-account"
                showSearch={{ optionFilterProp: 'label' }}
                placeholder="Choose the account to watch"
                options={accounts.map((account) => ({ value: account.id, label: account.name }))}
                onChange={(accountId: string) => navigate(`/setAlert/${encodeURIComponent(accountId)}`)}
              />
            </Form.Item>
          </Form>
        )}
      </Card>
    </Space>
  );
}
