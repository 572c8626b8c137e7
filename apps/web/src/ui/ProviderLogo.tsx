import { useId, type CSSProperties } from 'react';
import { CloudServerOutlined, DatabaseOutlined } from '@ant-design/icons';
import { PROVIDER_ICON_HEIGHT_PX, PROVIDER_NAMES, type ProviderName } from '@cumulo/contract';
import { PROVIDER_MARKS } from './provider-marks.ts';

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

/**
 * Providers with no permissively licensed mark in the icon packages: a neutral storage glyph stands in (Filebase's
 * own logo is in neither SVG Logos nor Simple Icons; "S3 compatible" is no brand).
 */
const NEUTRAL_MARKS: Partial<Record<ProviderName, typeof CloudServerOutlined>> = {
  genericS3: CloudServerOutlined,
  filebase: DatabaseOutlined,
};
const NEUTRAL_COLOUR = '#5c6b7a';

export function isProviderName(value: string | undefined): value is ProviderName {
  return PROVIDER_NAMES.includes(value as ProviderName);
}

/**
 * Gives the ids inside an icon's markup (its gradients) a prefix of this instance, so two logos on a page never
 * point at each other's definitions (a hidden first copy would blank every later one).
 */
function withOwnIds(body: string, prefix: string): string {
  const ids = [...body.matchAll(/id="([^"]+)"/g)].map((match) => match[1] ?? '');
  return ids.reduce(
    (markup, id) =>
      markup.replaceAll(`id="${id}"`, `id="${prefix}${id}"`).replaceAll(`#${id})`, `#${prefix}${id})`),
    body,
  );
}

/**
 * The provider's mark, `height` px high (spec 002 §9: 38), with its accessible name; `withName` adds the title
 * beside it.
 */
export function ProviderLogo({
  provider,
  height = PROVIDER_ICON_HEIGHT_PX,
  withName = false,
  style,
}: {
  provider: ProviderName;
  height?: number;
  withName?: boolean;
  style?: CSSProperties;
}) {
  const idPrefix = useId().replaceAll(':', '');
  const title = PROVIDER_TITLES[provider];
  const artwork = PROVIDER_MARKS[provider];
  const Neutral = NEUTRAL_MARKS[provider] ?? CloudServerOutlined;
  const mark = artwork ? (
    <svg
      role="img"
      aria-label={title}
      viewBox={`0 0 ${artwork.width} ${artwork.height}`}
      height={height}
      width={Math.round((height * artwork.width) / artwork.height)}
      style={{ flex: 'none', verticalAlign: 'middle', ...style }}
      // The markup is the icon package's own SVG, written into provider-marks.ts by a script: no user input.
      dangerouslySetInnerHTML={{ __html: withOwnIds(artwork.body, idPrefix) }}
    />
  ) : (
    <span
      role="img"
      aria-label={title}
      title={title}
      style={{
        display: 'inline-flex',
        alignItems: 'center',
        justifyContent: 'center',
        width: height,
        height,
        fontSize: Math.round(height * 0.8),
        color: NEUTRAL_COLOUR,
        flex: 'none',
        verticalAlign: 'middle',
        ...style,
      }}
    >
      <Neutral aria-hidden />
    </span>
  );
  if (!withName) return mark;
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
      {mark}
      <span>{title}</span>
    </span>
  );
}
