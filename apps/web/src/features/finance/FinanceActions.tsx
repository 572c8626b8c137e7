import { useState } from 'react';
import { Button, Space } from 'antd';
import {
  BellOutlined,
  FileTextOutlined,
  PlusOutlined,
  SettingOutlined,
  AlertOutlined,
} from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { ACTIONS, roleMay, type UserProfile } from '@cumulo/contract';
import { useProfile } from '../profile/useProfile.ts';
import { AddProductModal } from './AddProductModal.tsx';
import { AlertsListModal } from './AlertsListModal.tsx';
import { FinanceSettingsModal } from './FinanceSettingsModal.tsx';
import { SetAlertModal } from './SetAlertModal.tsx';

/**
 * Whether the member may take a finance action: the server's own rule (its roles, with the finance ACL on). An ACL
 * the profile does not list reads as on: spec 002 §2's write flag defaults to true.
 */
function mayFinance(profile: UserProfile | undefined, action: 'finance.manage' | 'finance.budget') {
  const service = ACTIONS[action].service;
  return (
    profile !== undefined &&
    roleMay(profile.role.title, action) &&
    (service === null || profile.acl.services[service] !== false)
  );
}

type OpenModal = 'alerts' | 'settings' | 'product' | 'alert' | null;

/**
 * The /finance header's actions (spec 002 §2 Finance). Notifications, Set Preferences and Logs — and Set alert,
 * which the server refuses to the same members — show only with write permission ('finance.manage'); Add product
 * needs 'finance.budget'. Each modal mounts only while open, so its calls run only then.
 */
export function FinanceActions({ cloud, product }: { cloud: string | undefined; product: string }) {
  const profile = useProfile().data;
  const navigate = useNavigate();
  const [open, setOpen] = useState<OpenModal>(null);
  const write = mayFinance(profile, 'finance.manage');
  const mayAddProduct = mayFinance(profile, 'finance.budget');
  const close = () => setOpen(null);

  return (
    <>
      <Space wrap>
        {write && (
          <>
            <Button icon={<AlertOutlined />} disabled={!cloud} onClick={() => setOpen('alert')}>
              Set alert
            </Button>
            <Button icon={<BellOutlined />} onClick={() => setOpen('alerts')}>
              Notifications
            </Button>
            <Button icon={<SettingOutlined />} onClick={() => setOpen('settings')}>
              Set Preferences
            </Button>
            <Button
              icon={<FileTextOutlined />}
              href="/logs"
              onClick={(event) => {
                event.preventDefault();
                void navigate('/logs');
              }}
            >
              Logs
            </Button>
          </>
        )}
        {mayAddProduct && (
          <Button icon={<PlusOutlined />} onClick={() => setOpen('product')}>
            Add product
          </Button>
        )}
      </Space>
      {open === 'alert' && cloud && <SetAlertModal cloud={cloud} product={product} onClose={close} />}
      {open === 'alerts' && <AlertsListModal onClose={close} />}
      {open === 'settings' && <FinanceSettingsModal onClose={close} />}
      {open === 'product' && <AddProductModal onClose={close} />}
    </>
  );
}
