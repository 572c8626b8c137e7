import { Button, Dropdown, Space, type MenuProps } from 'antd';
import { DownOutlined, PlusOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router';
import { PROVIDER_TITLES, ProviderLogo } from '../../ui/ProviderLogo.tsx';
import { useAccessInfo, useAccountPermissions } from './accounts-api.ts';

export const ADD_ACCOUNT_PATH = '/addProvider/wasabi';

/**
 * 'Add Your Cloud Account' (spec 000 §2 Dashboard and Hybrid screens): the button goes to /addProvider/wasabi,
 * its dropdown lists the providers this user may add (GET /cloud_accounts/access_info). Owners and Admins only.
 */
export function AddAccountButton() {
  const { canManage } = useAccountPermissions();
  const accessInfo = useAccessInfo(canManage);
  const navigate = useNavigate();
  if (!canManage) return null;

  const items: MenuProps['items'] = (accessInfo.data?.providers ?? []).map((provider) => ({
    key: provider,
    icon: <ProviderLogo provider={provider} height={22} />,
    label: <Link to={`/addProvider/${provider}`}>{PROVIDER_TITLES[provider]}</Link>,
  }));

  return (
    <Space.Compact>
      <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => navigate(ADD_ACCOUNT_PATH)}>
        Add Your Cloud Account
      </Button>
      <Dropdown menu={{ items }} trigger={['click']} disabled={items.length === 0} placement="bottomRight">
        <Button type="primary" icon={<DownOutlined aria-hidden />} aria-label="Choose a provider to add" />
      </Dropdown>
    </Space.Compact>
  );
}
