import { CheckCircleOutlined, ClockCircleOutlined, SyncOutlined, WarningOutlined } from '@ant-design/icons';
import type { StatusTone } from './migration-status.ts';

/** Processing spins; Failed and Canceled warn (spec 001 §4). */
export function StatusIcon({ tone, label }: { tone: StatusTone; label: string }) {
  switch (tone) {
    case 'processing':
      return <SyncOutlined spin aria-label={label} style={{ color: '#1668dc' }} />;
    case 'failed':
      return <WarningOutlined aria-label={label} style={{ color: '#faad14' }} />;
    case 'succeeded':
      return <CheckCircleOutlined aria-label={label} style={{ color: '#52c41a' }} />;
    default:
      return <ClockCircleOutlined aria-label={label} style={{ color: '#8c8c8c' }} />;
  }
}
