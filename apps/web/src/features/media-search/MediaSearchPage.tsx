import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Alert, Button, Card, Col, Flex, Input, Result, Row, Segmented, Select, Typography } from 'antd';
import { EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import {
  MEDIA_SEARCH_DEBOUNCE_MS,
  MEDIA_SEARCH_KEYWORD_MAX,
  MEDIA_SEARCH_LIMITS,
  MEDIA_SEARCH_TITLE,
  analyticsReadMessages,
  mediaSearchMessages,
  type CloudAccountView,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { AdvancedFilters } from './AdvancedFilters.tsx';
import {
  initialSearch,
  resultId,
  searchRequestOf,
  useMediaSearch,
  type FilterDraft,
  type SearchBy,
} from './media-search-api.ts';
import { PreviewPane } from './PreviewPane.tsx';
import { SearchResults, type ResultsView } from './SearchResults.tsx';

/** What the member types: searched once they stop typing for MEDIA_SEARCH_DEBOUNCE_MS. */
interface Typed {
  keyword: string;
  filters: FilterDraft[];
}

/** Holds `typed` back until it has not changed for MEDIA_SEARCH_DEBOUNCE_MS (spec 001 §9). */
function useDebounced(typed: Typed): Typed {
  const [settled, setSettled] = useState(typed);
  useEffect(() => {
    if (settled === typed) return undefined;
    const timer = setTimeout(() => setSettled(typed), MEDIA_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed, settled]);
  return settled;
}

const BY_OPTIONS: Array<{ value: SearchBy; label: string }> = [
  { value: 'name', label: 'By name' },
  { value: 'location', label: 'By location' },
];

/** /mediasearch (spec 001 §2 "Media search", LiteMAM): find files by name, location and metadata. */
export function MediaSearchPage() {
  useDocumentTitle(MEDIA_SEARCH_TITLE);
  const accounts = useCloudAccounts();
  const [preview, setPreview] = useState(true);
  const header = (
    <Flex justify="space-between" align="center" wrap gap={16}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {MEDIA_SEARCH_TITLE}
      </Typography.Title>
      <Button
        icon={preview ? <EyeInvisibleOutlined /> : <EyeOutlined />}
        onClick={() => setPreview((shown) => !shown)}
      >
        {preview ? 'Hide Preview' : 'Show Preview'}
      </Button>
    </Flex>
  );
  if (accounts.isError) {
    return (
      <Flex vertical gap={24}>
        {header}
        <Alert type="error" showIcon title={describeError(accounts.error)} />
      </Flex>
    );
  }
  if (!accounts.data) return <PageSpinner />;
  if (accounts.data.length === 0) {
    return (
      <Flex vertical gap={24}>
        {header}
        <Result
          status="info"
          title={analyticsReadMessages.noAccount}
          extra={
            <Link to="/addProvider">
              <Button type="primary">Add a cloud account</Button>
            </Link>
          }
        />
      </Flex>
    );
  }
  return (
    <Flex vertical gap={24}>
      {header}
      <MediaSearch accounts={accounts.data} preview={preview} />
    </Flex>
  );
}

function MediaSearch({ accounts, preview }: { accounts: CloudAccountView[]; preview: boolean }) {
  const [controls, setControls] = useState(() => ({
    by: initialSearch.by,
    accounts: initialSearch.accounts,
    bucket: initialSearch.bucket,
    limit: initialSearch.limit,
  }));
  const [typed, setTyped] = useState<Typed>({ keyword: '', filters: [] });
  const [view, setView] = useState<ResultsView>('Table');
  const [selected, setSelected] = useState<string[]>([]);
  const settled = useDebounced(typed);
  const body = useMemo(() => searchRequestOf({ ...controls, ...settled }), [controls, settled]);
  const search = useMediaSearch(body);
  const results = useMemo(() => search.data?.results ?? [], [search.data]);
  const selectedResults = results.filter((result) => selected.includes(resultId(result)));

  const buckets = useMemo(() => {
    const chosen =
      controls.accounts.length > 0 ? accounts.filter((a) => controls.accounts.includes(a.id)) : accounts;
    return [...new Set(chosen.flatMap((account) => account.storages.map((bucket) => bucket.name)))].sort();
  }, [accounts, controls.accounts]);

  return (
    <Flex vertical gap={16}>
      <Flex gap={12} wrap align="center">
        <Select
          mode="multiple"
          aria-label="Cloud accounts"
          placeholder="All cloud accounts"
          style={{ minWidth: 240 }}
          value={controls.accounts}
          onChange={(ids: string[]) => setControls((c) => ({ ...c, accounts: ids, bucket: '' }))}
          options={accounts.map((account) => ({ value: account.id, label: account.name }))}
          optionFilterProp="label"
        />
        <Segmented<SearchBy>
          aria-label="Search by"
          options={BY_OPTIONS}
          value={controls.by}
          onChange={(by) => setControls((c) => ({ ...c, by }))}
        />
        {controls.by === 'location' && (
          <Select
            aria-label="Bucket"
            placeholder="Any bucket"
            allowClear
            showSearch
            style={{ minWidth: 200 }}
            value={controls.bucket === '' ? undefined : controls.bucket}
            onChange={(bucket?: string) => setControls((c) => ({ ...c, bucket: bucket ?? '' }))}
            options={buckets.map((name) => ({ value: name, label: name }))}
          />
        )}
        <Input.Search
          aria-label="Search"
          allowClear
          style={{ flex: '1 1 260px', maxWidth: 480 }}
          maxLength={MEDIA_SEARCH_KEYWORD_MAX}
          placeholder={controls.by === 'name' ? 'Search by name or metadata' : 'Search by location (path)'}
          value={typed.keyword}
          onChange={(event) => setTyped((t) => ({ ...t, keyword: event.target.value }))}
          onSearch={(keyword) => setTyped((t) => ({ ...t, keyword }))}
        />
        <Select
          aria-label="Results per page"
          style={{ width: 90 }}
          value={controls.limit}
          onChange={(limit: number) => setControls((c) => ({ ...c, limit }))}
          options={MEDIA_SEARCH_LIMITS.map((limit) => ({ value: limit, label: String(limit) }))}
        />
        <Segmented<ResultsView>
          aria-label="View"
          options={['Table', 'List']}
          value={view}
          onChange={setView}
        />
      </Flex>
      <AdvancedFilters filters={typed.filters} onChange={(filters) => setTyped((t) => ({ ...t, filters }))} />
      {search.isError ? (
        <Alert type="error" showIcon title={describeError(search.error)} />
      ) : (
        <Typography.Text role="status" aria-live="polite">
          {search.data ? mediaSearchMessages.resultCount(search.data.count) : 'Searching…'}
        </Typography.Text>
      )}
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={preview ? 15 : 24}>
          <SearchResults
            view={view}
            results={results}
            loading={search.isFetching}
            selected={selected}
            onSelect={setSelected}
          />
        </Col>
        {preview && (
          <Col xs={24} xl={9}>
            <Card size="small" title="Preview" aria-label="Preview" role="region">
              <PreviewPane selected={selectedResults} />
            </Card>
          </Col>
        )}
      </Row>
    </Flex>
  );
}
