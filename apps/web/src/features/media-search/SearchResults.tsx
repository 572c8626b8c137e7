import { Checkbox, Flex, Table, Typography, type TableColumnsType } from 'antd';
import { formatBytes, type MediaSearchResult } from '@cumulo/contract';
import { DateText } from '../../ui/DateText.tsx';
import { resultId } from './media-search-api.ts';

export type ResultsView = 'Table' | 'List';

interface SearchResultsProps {
  view: ResultsView;
  results: MediaSearchResult[];
  loading: boolean;
  selected: string[];
  onSelect(ids: string[]): void;
}

const columns: TableColumnsType<MediaSearchResult> = [
  { title: 'Name', dataIndex: 'name', ellipsis: true },
  { title: 'Cloud account', dataIndex: 'project_name', ellipsis: true },
  { title: 'Bucket', dataIndex: 'bucket_name', ellipsis: true },
  { title: 'Path', dataIndex: 'path', ellipsis: true, render: (path: string) => path || '/' },
  {
    title: 'Size',
    key: 'size',
    align: 'right',
    width: 110,
    render: (_, result) => formatBytes(result.metadata.size),
  },
  {
    title: 'Last modified',
    key: 'last_modified',
    width: 130,
    render: (_, result) =>
      result.metadata.last_modified ? <DateText value={result.metadata.last_modified} /> : '—',
  },
];

/**
 * The results as a table or a list. A click on a file previews it alone; the check boxes select several for the
 * bulk actions.
 */
export function SearchResults({ view, results, loading, selected, onSelect }: SearchResultsProps) {
  const toggle = (id: string, on: boolean) =>
    onSelect(on ? [...selected.filter((s) => s !== id), id] : selected.filter((s) => s !== id));
  if (view === 'Table') {
    return (
      <Table<MediaSearchResult>
        aria-label="Search results"
        size="small"
        rowKey={resultId}
        columns={columns}
        dataSource={results}
        loading={loading}
        pagination={false}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => onSelect(keys.map(String)),
          getCheckboxProps: (result) => ({ 'aria-label': `Select ${result.name}` }),
        }}
        onRow={(result) => ({
          // A click on the row previews it alone; one on its check box only adds it to the selection.
          onClick: (event) => {
            if ((event.target as HTMLElement).closest('.ant-table-selection-column')) return;
            onSelect([resultId(result)]);
          },
          style: { cursor: 'pointer' },
        })}
      />
    );
  }
  return (
    <ul aria-label="Search results" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {results.map((result) => {
        const id = resultId(result);
        return (
          <li key={id} style={{ padding: '8px 4px', borderBottom: '1px solid rgba(5, 5, 5, 0.06)' }}>
            <Flex gap={12} align="center">
              <Checkbox
                aria-label={`Select ${result.name}`}
                checked={selected.includes(id)}
                onChange={(event) => toggle(id, event.target.checked)}
              />
              <Flex vertical style={{ minWidth: 0, cursor: 'pointer' }} onClick={() => onSelect([id])}>
                <Typography.Text strong ellipsis>
                  {result.name}
                </Typography.Text>
                <Typography.Text type="secondary" ellipsis>
                  {result.project_name} · {result.bucket_name}/{result.path} ·{' '}
                  {formatBytes(result.metadata.size)}
                </Typography.Text>
              </Flex>
            </Flex>
          </li>
        );
      })}
    </ul>
  );
}
