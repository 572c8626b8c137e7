import type { CSSProperties } from 'react';
import { PROVIDER_NAMES, type ProviderName } from '@cumulo/contract';

/** Display names of the providers, as the account forms and lists show them. */
export const PROVIDER_TITLES: Record<ProviderName, string> = {
  aws: 'Amazon S3',
  wasabi: 'Wasabi',
  azure: 'Azure Blob',
  backblaze: 'Backblaze B2',
  genericS3: 'S3 Compatible',
  google: 'Google Cloud',
  filebase: 'Filebase',
};

/** Brand-ish colours; the marks are drawn here (no third-party artwork is shipped). */
const COLOURS: Record<ProviderName, string> = {
  aws: '#ff9900',
  wasabi: '#3bb54a',
  azure: '#0078d4',
  backblaze: '#e21e29',
  genericS3: '#5c6b7a',
  google: '#4285f4',
  filebase: '#0a0a23',
};

const INITIALS: Record<ProviderName, string> = {
  aws: 'S3',
  wasabi: 'W',
  azure: 'Az',
  backblaze: 'B2',
  genericS3: 'S3',
  google: 'G',
  filebase: 'Fb',
};

export function isProviderName(value: string | undefined): value is ProviderName {
  return PROVIDER_NAMES.includes(value as ProviderName);
}

/** A round provider mark with its accessible name; `withName` adds the title beside it. */
export function ProviderLogo({
  provider,
  size = 32,
  withName = false,
  style,
}: {
  provider: ProviderName;
  size?: number;
  withName?: boolean;
  style?: CSSProperties;
}) {
  const mark = (
    <span
      role="img"
      aria-label={PROVIDER_TITLES[provider]}
      title={PROVIDER_TITLES[provider]}
      style={{
        display: 'inline-flex',
        alignItems: 'center',
        justifyContent: 'center',
        width: size,
        height: size,
        borderRadius: '50%',
        background: COLOURS[provider],
        color: '#fff',
        fontWeight: 600,
        fontSize: Math.round(size * 0.38),
        flex: 'none',
        ...style,
      }}
    >
      {INITIALS[provider]}
    </span>
  );
  if (!withName) return mark;
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
      {mark}
      <span>{PROVIDER_TITLES[provider]}</span>
    </span>
  );
}
