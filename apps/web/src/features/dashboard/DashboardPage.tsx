import { Button, Card, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';

/** / and /dashboard — a welcome for now; accounts, transfers and syncs arrive in a later release. */
export function DashboardPage() {
  useDocumentTitle('Dashboard');
  const { data: profile } = useProfile();
  const navigate = useNavigate();
  return (
    <>
      <Typography.Title level={2} style={{ marginTop: 0 }}>
        Dashboard
      </Typography.Title>
      <Card>
        <Typography.Paragraph>
          Welcome to Cumulo{profile ? `, ${profile.first_name}` : ''}. Your cloud accounts, recent transfers
          and sync jobs will appear here in a later release.
        </Typography.Paragraph>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/addProvider/wasabi')}>
          Add Your Cloud Account
        </Button>
      </Card>
    </>
  );
}
