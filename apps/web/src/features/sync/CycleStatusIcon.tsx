import {
  CheckCircleOutlined,
  CloseCircleOutlined,
  MinusCircleOutlined,
  StopOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { Tooltip } from 'antd';
import {
  SYNC_CYCLE_STATUS,
  SYNC_CYCLE_STATUS_LABEL,
  SYNC_DEFAULT_ERROR,
  type SyncCycleStatusCode,
} from '@cumulo/contract';

export function cycleStatusLabel(status: number): string {
  return SYNC_CYCLE_STATUS_LABEL[status as SyncCycleStatusCode] ?? String(status);
}

function Glyph({ status }: { status: number }) {
  switch (status) {
    case SYNC_CYCLE_STATUS.processing:
    case SYNC_CYCLE_STATUS.transferring:
      return <SyncOutlined spin style={{ color: '#1668dc' }} />;
    case SYNC_CYCLE_STATUS.completed:
      return <CheckCircleOutlined style={{ color: '#52c41a' }} />;
    case SYNC_CYCLE_STATUS.faulted:
      return <CloseCircleOutlined style={{ color: '#ff4d4f' }} />;
    case SYNC_CYCLE_STATUS.cancelled:
      return <StopOutlined style={{ color: '#8c8c8c' }} />;
    default:
      return <MinusCircleOutlined style={{ color: '#8c8c8c' }} />;
  }
}

/**
 * A cycle's status as an icon named by its spec label (000 §4); the tooltip of a Faulted cycle shows its last
 * error, 'Error' when there is none. Focusable, so the tooltip also opens from the keyboard.
 */
export function CycleStatusIcon({ status, error }: { status: number; error: string | null }) {
  const label = cycleStatusLabel(status);
  const tip = status === SYNC_CYCLE_STATUS.faulted ? error || SYNC_DEFAULT_ERROR : label;
  return (
    <Tooltip title={tip}>
      <span role="img" aria-label={label} tabIndex={0}>
        <Glyph status={status} />
      </span>
    </Tooltip>
  );
}
