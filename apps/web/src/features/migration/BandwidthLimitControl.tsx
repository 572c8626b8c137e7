import { Checkbox, InputNumber, Space, Typography } from 'antd';
import { TRANSFER_BANDWIDTH_MIN } from '@cumulo/contract';
import { migrationTexts } from './migration-texts.ts';

const MiB = 1024 * 1024;

/** The "Limit bandwidth" choice: off, or a rate in MiB/s (at least 1). */
export interface BandwidthChoice {
  enabled: boolean;
  mebibytesPerSecond: number | null;
}

export const unlimited: BandwidthChoice = { enabled: false, mebibytesPerSecond: 10 };

/**
 * What the transfer call takes: bytes per second, undefined when unlimited, null when ticked without a valid
 * rate (the copy buttons wait for one).
 */
export function bandwidthLimitOf(choice: BandwidthChoice): number | undefined | null {
  if (!choice.enabled) return undefined;
  const rate = choice.mebibytesPerSecond;
  if (rate === null || !Number.isFinite(rate)) return null;
  const bytes = Math.round(rate * MiB);
  return bytes >= TRANSFER_BANDWIDTH_MIN ? bytes : null;
}

interface BandwidthLimitControlProps {
  value: BandwidthChoice;
  onChange(next: BandwidthChoice): void;
}

/** An optional bandwidth limit for a transfer, like rclone's --bwlimit or DataSync's bandwidth limit. */
export function BandwidthLimitControl({ value, onChange }: BandwidthLimitControlProps) {
  return (
    <Space orientation="vertical" size={4}>
      <Space wrap>
        <Checkbox
          checked={value.enabled}
          onChange={(event) => onChange({ ...value, enabled: event.target.checked })}
        >
          Limit bandwidth
        </Checkbox>
        <InputNumber<number>
          aria-label="Bandwidth limit (MiB/s)"
          min={1}
          step={1}
          disabled={!value.enabled}
          value={value.mebibytesPerSecond}
          onChange={(rate) => onChange({ ...value, mebibytesPerSecond: rate })}
          suffix="MiB/s"
          style={{ width: 140 }}
        />
      </Space>
      {value.enabled && <Typography.Text type="secondary">{migrationTexts.bandwidthHint}</Typography.Text>}
    </Space>
  );
}
