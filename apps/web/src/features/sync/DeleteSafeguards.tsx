import { Checkbox, InputNumber, Space, Typography } from 'antd';
import { SYNC_DELETE_GUARD, type SyncJob } from '@cumulo/contract';
import { syncTexts } from './sync-texts.ts';

const DEFAULT_QUARANTINE_DAYS = 30;
const MAX_QUARANTINE_DAYS = 3650;

/**
 * The delete safeguards of a replication that follows deletes (the guardrail thresholds and quarantine). Only an
 * Owner or Admin may set thresholds above the defaults (the server refuses anyone else: `sync.guard`).
 */
export function DeleteSafeguards({
  guard,
  onChange,
  mayLoosen = true,
}: {
  guard: Guard;
  onChange(next: Guard): void;
  mayLoosen?: boolean;
}) {
  return (
    <Space orientation="vertical" size="middle">
      <Typography.Text type="secondary">{syncTexts.guardNote}</Typography.Text>
      <Space wrap>
        <Checkbox
          checked={guard.quarantine}
          onChange={(event) => onChange({ ...guard, quarantine: event.target.checked })}
        >
          {syncTexts.quarantine}
        </Checkbox>
        <InputNumber
          aria-label={syncTexts.quarantineDays}
          min={1}
          max={MAX_QUARANTINE_DAYS}
          precision={0}
          disabled={!guard.quarantine}
          value={guard.quarantineDays}
          onChange={(value) => onChange({ ...guard, quarantineDays: value ?? DEFAULT_QUARANTINE_DAYS })}
        />
        <Typography.Text>days</Typography.Text>
      </Space>
      <Space wrap>
        <Typography.Text>{syncTexts.thresholdCount}</Typography.Text>
        <InputNumber
          aria-label={syncTexts.thresholdCount}
          min={0}
          max={mayLoosen ? undefined : SYNC_DELETE_GUARD.count}
          precision={0}
          value={guard.count}
          onChange={(value) => onChange({ ...guard, count: value ?? SYNC_DELETE_GUARD.count })}
        />
      </Space>
      <Space wrap>
        <Typography.Text>{syncTexts.thresholdPercent}</Typography.Text>
        <InputNumber
          aria-label={syncTexts.thresholdPercent}
          min={0}
          max={mayLoosen ? 100 : SYNC_DELETE_GUARD.percent}
          precision={0}
          value={guard.percent}
          onChange={(value) => onChange({ ...guard, percent: value ?? SYNC_DELETE_GUARD.percent })}
        />
      </Space>
    </Space>
  );
}

export interface Guard {
  quarantine: boolean;
  quarantineDays: number;
  count: number;
  percent: number;
}

export const defaultGuard: Guard = {
  quarantine: false,
  quarantineDays: DEFAULT_QUARANTINE_DAYS,
  count: SYNC_DELETE_GUARD.count,
  percent: SYNC_DELETE_GUARD.percent,
};

/** A job's safeguards as the form edits them. */
export function guardOf(job: SyncJob): Guard {
  return {
    quarantine: job.info.quarantineDays !== null,
    quarantineDays: job.info.quarantineDays ?? DEFAULT_QUARANTINE_DAYS,
    count: job.info.deleteThresholdCount,
    percent: job.info.deleteThresholdPercent,
  };
}
