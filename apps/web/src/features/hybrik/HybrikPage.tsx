import { Tabs, Typography } from 'antd';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { HybrikJobsTable } from './HybrikJobsTable.tsx';
import { HybrikSettings } from './HybrikSettings.tsx';

/**
 * /hybrik (spec 001 §2 "Hybrik page"): the profile jobs grouped queued, active, completed and failed, each tab
 * refreshed every second while shown, and the Settings tab. Behind the Hybrik package (routes.tsx).
 */
export function HybrikPage() {
  useDocumentTitle('Hybrik Encoding');
  return (
    <>
      <Typography.Title level={2}>Hybrik Encoding</Typography.Title>
      <Tabs
        destroyOnHidden
        items={[
          {
            key: 'queued',
            label: 'Queued',
            children: <HybrikJobsTable filter="queued" label="Queued jobs" />,
          },
          {
            key: 'active',
            label: 'Active',
            children: <HybrikJobsTable filter="active" label="Active jobs" />,
          },
          {
            key: 'completed',
            label: 'Completed',
            children: <HybrikJobsTable filter="completed" label="Completed jobs" />,
          },
          {
            key: 'failed',
            label: 'Failed Jobs',
            children: <HybrikJobsTable filter="failed" label="Failed jobs" />,
          },
          { key: 'settings', label: 'Settings', children: <HybrikSettings /> },
        ]}
      />
    </>
  );
}
