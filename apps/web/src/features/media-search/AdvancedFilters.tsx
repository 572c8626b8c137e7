import { AutoComplete, Button, Flex, Input, Select, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { MEDIA_SEARCH_COMPARATORS, MEDIA_SEARCH_FIELDS, MEDIA_SEARCH_FILTERS_MAX } from '@cumulo/contract';
import type { FilterDraft } from './media-search-api.ts';

/** Keys offered as the member types: the fields, then the media info everyone probes for. */
const KEY_OPTIONS = [
  ...MEDIA_SEARCH_FIELDS,
  'metadata.video.codec',
  'metadata.audio.codec',
  'metadata.general.duration',
].map((value) => ({ value }));

interface AdvancedFiltersProps {
  filters: FilterDraft[];
  onChange(filters: FilterDraft[]): void;
}

/**
 * The advanced metadata filters (spec 001 §2, §5, §9): key, comparator, value per row. A row with any of the three
 * empty is not sent; a key that is not a field names custom, user or media-info metadata.
 */
export function AdvancedFilters({ filters, onChange }: AdvancedFiltersProps) {
  const change = (id: number, patch: Partial<FilterDraft>) =>
    onChange(filters.map((filter) => (filter.id === id ? { ...filter, ...patch } : filter)));
  const add = () =>
    onChange([
      ...filters,
      { id: Math.max(0, ...filters.map((f) => f.id)) + 1, key: '', comparator: 'contains', value: '' },
    ]);
  return (
    <section aria-label="Advanced filters">
      <Flex vertical gap={8}>
        <Flex align="center" gap={12}>
          <Typography.Text strong>Advanced filters</Typography.Text>
          <Button
            size="small"
            icon={<PlusOutlined />}
            onClick={add}
            disabled={filters.length >= MEDIA_SEARCH_FILTERS_MAX}
          >
            Add filter
          </Button>
        </Flex>
        {filters.map((filter, index) => (
          <Flex key={filter.id} gap={8} wrap align="center" role="group" aria-label={`Filter ${index + 1}`}>
            <AutoComplete
              aria-label="Filter key"
              placeholder="Key (name, size, type or a metadata name)"
              style={{ width: 260 }}
              options={KEY_OPTIONS}
              value={filter.key}
              onChange={(key: string) => change(filter.id, { key })}
              filterOption={(typed, option) => String(option?.value ?? '').includes(typed.toLowerCase())}
            />
            <Select
              aria-label="Comparator"
              placeholder="Comparator"
              style={{ width: 170 }}
              value={filter.comparator === '' ? undefined : filter.comparator}
              onChange={(comparator) => change(filter.id, { comparator })}
              options={MEDIA_SEARCH_COMPARATORS.map((value) => ({ value, label: value }))}
            />
            <Input
              aria-label="Filter value"
              placeholder="Value"
              style={{ width: 220 }}
              value={filter.value}
              onChange={(event) => change(filter.id, { value: event.target.value })}
            />
            <Button
              aria-label={`Remove filter ${index + 1}`}
              icon={<DeleteOutlined />}
              onClick={() => onChange(filters.filter((f) => f.id !== filter.id))}
            />
          </Flex>
        ))}
      </Flex>
    </section>
  );
}
