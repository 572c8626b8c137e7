import { Card, Flex, Typography } from 'antd';
import type { ProviderName } from '@cumulo/contract';
import { PROVIDER_TITLES, ProviderLogo } from '../../ui/ProviderLogo.tsx';

/** Step 1: one logo card per provider this user may add. */
export function ProviderPicker({
  providers,
  selected,
  onSelect,
}: {
  providers: readonly ProviderName[];
  selected: ProviderName | null;
  onSelect: (provider: ProviderName) => void;
}) {
  return (
    <div role="group" aria-label="Cloud providers">
      <Typography.Paragraph type="secondary">
        Choose the provider of the storage you want to connect.
      </Typography.Paragraph>
      <Flex wrap gap={16}>
        {providers.map((provider) => (
          <Card
            key={provider}
            hoverable
            role="button"
            tabIndex={0}
            aria-label={PROVIDER_TITLES[provider]}
            aria-pressed={selected === provider}
            onClick={() => onSelect(provider)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault();
                onSelect(provider);
              }
            }}
            style={{
              width: 168,
              textAlign: 'center',
              borderColor: selected === provider ? '#1668dc' : undefined,
            }}
          >
            <ProviderLogo provider={provider} />
            <Typography.Text strong style={{ display: 'block', marginTop: 12 }}>
              {PROVIDER_TITLES[provider]}
            </Typography.Text>
          </Card>
        ))}
      </Flex>
    </div>
  );
}
