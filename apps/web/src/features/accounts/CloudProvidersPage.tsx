import { Button, Card, Flex, Space, Typography } from 'antd';
import { BarChartOutlined, PlusOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router';
import type { ProviderName } from '@cumulo/contract';
import { PROVIDER_TITLES, ProviderLogo } from '../../ui/ProviderLogo.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { ADD_ACCOUNT_PATH } from './AddAccountButton.tsx';
import { CloudAccountList } from './CloudAccountList.tsx';
import { useAccessInfo, useAccountPermissions } from './accounts-api.ts';

/** The provider icons of the Cloud Providers page (spec 000 §2). */
const PAGE_PROVIDERS: readonly ProviderName[] = ['aws', 'wasabi', 'azure', 'backblaze', 'genericS3'];

/** Icons that open the add-account screen, limited to the providers this user may add. */
function ProviderShortcuts() {
  const accessInfo = useAccessInfo();
  const allowed = accessInfo.data?.providers ?? [];
  const providers = PAGE_PROVIDERS.filter((provider) => allowed.includes(provider));
  if (providers.length === 0) return null;
  return (
    <nav aria-label="Add a provider">
      <Flex wrap gap={24}>
        {providers.map((provider) => (
          <Link
            key={provider}
            to={`/addProvider/${provider}`}
            aria-label={`Add ${PROVIDER_TITLES[provider]}`}
          >
            <Flex vertical align="center" gap={6}>
              <ProviderLogo provider={provider} />
              <Typography.Text>{PROVIDER_TITLES[provider]}</Typography.Text>
            </Flex>
          </Link>
        ))}
      </Flex>
    </nav>
  );
}

/** /cloudproviders — add a provider, compare prices, and the account list (spec 000 §2 Cloud Providers page). */
export function CloudProvidersPage() {
  useDocumentTitle('Cloud Providers');
  const navigate = useNavigate();
  const { canManage } = useAccountPermissions();
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap={16}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          Cloud Providers
        </Typography.Title>
        <Space wrap>
          <Button icon={<BarChartOutlined aria-hidden />} onClick={() => navigate('/cloud-compare/0')}>
            Compare storage prices
          </Button>
          {canManage && (
            <Button
              type="primary"
              icon={<PlusOutlined aria-hidden />}
              onClick={() => navigate(ADD_ACCOUNT_PATH)}
            >
              Add Your Cloud Account
            </Button>
          )}
        </Space>
      </Flex>
      {canManage && (
        <Card title="Connect a provider">
          <ProviderShortcuts />
        </Card>
      )}
      <CloudAccountList />
    </Space>
  );
}
