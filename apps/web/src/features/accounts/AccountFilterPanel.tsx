import { Button, Col, DatePicker, Input, Row, Select, Slider, Typography } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { formatUsd, type CloudAccountView } from '@cumulo/contract';
import { DATE_FORMAT } from '../../ui/DateText.tsx';
import { PROVIDER_TITLES } from '../../ui/ProviderLogo.tsx';
import {
  ALL_REGIONS,
  NO_FILTERS,
  PROVIDER_TYPE_FILTERS,
  costSliderMax,
  hasAnyFilter,
  regionOptions,
  usageSliderMax,
  type AccountFilters,
  type SliderRange,
} from './account-filters.ts';

interface AccountFilterPanelProps {
  accounts: readonly CloudAccountView[];
  filters: AccountFilters;
  onChange: (filters: AccountFilters) => void;
}

const DAY = 'YYYY-MM-DD';

/** A stored range shown inside the current slider bounds (the maximum moves as accounts change). */
function sliderValue(range: SliderRange | null, max: number): [number, number] {
  if (range === null) return [0, max];
  return [Math.min(range[0], max), Math.min(range[1], max)];
}

/** A range that covers the whole slider means "not filtering", so later, larger accounts still show. */
function storedRange(value: number[], max: number): SliderRange | null {
  const [low = 0, high = max] = value;
  return low <= 0 && high >= max ? null : [low, high];
}

/** Search, type, created date, region and the usage and cost sliders (spec 000 §2 "Filter panel", §5). */
export function AccountFilterPanel({ accounts, filters, onChange }: AccountFilterPanelProps) {
  const usageMax = usageSliderMax(accounts);
  const costMax = costSliderMax(accounts);
  const regions = regionOptions(accounts);
  const set = (patch: Partial<AccountFilters>) => onChange({ ...filters, ...patch });

  return (
    <section aria-label="Filters" style={{ marginBottom: 16 }}>
      <Row gutter={[16, 12]} align="bottom">
        <Col xs={24} md={12} xl={6}>
          <label htmlFor="account-filter-search">
            <Typography.Text type="secondary">Bucket name</Typography.Text>
          </label>
          <Input
            id="account-filter-search"
            allowClear
            prefix={<SearchOutlined aria-hidden />}
            placeholder="Search buckets"
            value={filters.search}
            onChange={(event) => set({ search: event.target.value })}
          />
        </Col>
        <Col xs={12} md={6} xl={4}>
          <Typography.Text type="secondary" id="account-filter-type-label">
            Type
          </Typography.Text>
          <Select
            aria-labelledby="account-filter-type-label"
            style={{ width: '100%' }}
            value={filters.type}
            onChange={(type) => set({ type })}
            options={PROVIDER_TYPE_FILTERS.map((type) => ({
              value: type,
              label: type === 'all' ? 'All types' : PROVIDER_TITLES[type],
            }))}
          />
        </Col>
        <Col xs={12} md={6} xl={4}>
          <Typography.Text type="secondary" id="account-filter-region-label">
            Region
          </Typography.Text>
          <Select
            aria-labelledby="account-filter-region-label"
            style={{ width: '100%' }}
            value={filters.region}
            onChange={(region) => set({ region })}
            options={[
              { value: ALL_REGIONS, label: 'All regions' },
              ...regions.map((region) => ({ value: region, label: region })),
            ]}
          />
        </Col>
        <Col xs={24} md={12} xl={6}>
          <Typography.Text type="secondary">Created</Typography.Text>
          <DatePicker.RangePicker
            style={{ width: '100%' }}
            format={DATE_FORMAT}
            allowEmpty={[true, true]}
            placeholder={['Created from', 'Created to']}
            value={[
              filters.createdFrom ? dayjs(filters.createdFrom, DAY) : null,
              filters.createdTo ? dayjs(filters.createdTo, DAY) : null,
            ]}
            onChange={(range) =>
              set({
                createdFrom: range?.[0] ? range[0].format(DAY) : null,
                createdTo: range?.[1] ? range[1].format(DAY) : null,
              })
            }
          />
        </Col>
        <Col xs={24} md={12} xl={4}>
          <Button block disabled={!hasAnyFilter(filters)} onClick={() => onChange(NO_FILTERS)}>
            Clear filters
          </Button>
        </Col>
        <Col xs={24} md={12}>
          <Typography.Text type="secondary">Usage (GB)</Typography.Text>
          <Slider
            range
            min={0}
            max={usageMax}
            value={sliderValue(filters.usageGb, usageMax)}
            tooltip={{ formatter: (value) => `${value ?? 0} GB` }}
            ariaLabelForHandle={['Lowest usage in GB', 'Highest usage in GB']}
            onChange={(value) => set({ usageGb: storedRange(value, usageMax) })}
          />
        </Col>
        <Col xs={24} md={12}>
          <Typography.Text type="secondary">Monthly cost (USD)</Typography.Text>
          <Slider
            range
            min={0}
            max={costMax}
            value={sliderValue(filters.costUsd, costMax)}
            tooltip={{ formatter: (value) => formatUsd(value ?? 0) }}
            ariaLabelForHandle={['Lowest monthly cost', 'Highest monthly cost']}
            onChange={(value) => set({ costUsd: storedRange(value, costMax) })}
          />
        </Col>
      </Row>
    </section>
  );
}
