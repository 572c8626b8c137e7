import { useEffect, useMemo, useRef, useState } from 'react';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Empty,
  Row,
  Segmented,
  Select,
  Space,
  Spin,
  Tree,
  Typography,
  type TreeDataNode,
} from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import {
  AUDIT_RANGES,
  auditMessages,
  type AuditEntity,
  type AuditEntry,
  type AuditRange,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { saveTextFile } from '../transfers/save-text-file.ts';
import { fetchAuditCsv, useAuditFilters, useAuditPages, type AuditSelection } from './audit-api.ts';
import { rangeStart } from './audit-range.ts';

const TIME_FORMAT = 'MM/DD/YYYY HH:mm:ss';

/** /logs — 'Users Activities' (spec 002 §2 "Finance logs"): who changed what, newest first, 20 at a time. */
export function LogsPage() {
  useDocumentTitle(auditMessages.title);
  const { message } = App.useApp();
  const [entities, setEntities] = useState<AuditEntity[]>([]);
  const [users, setUsers] = useState<string[]>([]);
  const [range, setRange] = useState<AuditRange>('All');
  // The range's start is fixed when chosen, so the query key (and the pages loaded) stay put while scrolling.
  const [from, setFrom] = useState<string | undefined>(undefined);
  const selection = useMemo<AuditSelection>(() => ({ entities, users, from }), [entities, users, from]);
  const filters = useAuditFilters();
  const pages = useAuditPages(selection);
  const [exporting, setExporting] = useState(false);

  const entries = useMemo(() => pages.data?.pages.flatMap((page) => page.audits) ?? [], [pages.data]);
  const total = pages.data?.pages[0]?.total ?? 0;

  const chooseRange = (next: AuditRange) => {
    setRange(next);
    setFrom(rangeStart(next));
  };

  const exportCsv = async () => {
    setExporting(true);
    try {
      saveTextFile('audits.csv', await fetchAuditCsv(selection), 'text/csv');
    } catch (error) {
      void message.error(describeError(error));
    } finally {
      setExporting(false);
    }
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {auditMessages.title}
      </Typography.Title>
      <Space wrap>
        <Select<AuditEntity[]>
          mode="multiple"
          allowClear
          aria-label="Entities"
          placeholder="All entities"
          style={{ minWidth: 220 }}
          value={entities}
          onChange={setEntities}
          options={(filters.data?.entities ?? []).map((entity) => ({ value: entity, label: entity }))}
        />
        <Select<string[]>
          mode="multiple"
          allowClear
          aria-label="Users"
          placeholder="All users"
          style={{ minWidth: 220 }}
          value={users}
          onChange={setUsers}
          optionFilterProp="label"
          options={(filters.data?.users ?? []).map((user) => ({ value: user.id, label: user.name }))}
        />
        <Segmented<AuditRange>
          aria-label="Range"
          options={[...AUDIT_RANGES]}
          value={range}
          onChange={chooseRange}
        />
        <Button icon={<DownloadOutlined />} loading={exporting} onClick={() => void exportCsv()}>
          Export CSV
        </Button>
      </Space>
      {pages.error ? (
        <Alert type="error" showIcon title={auditMessages.loadFailed} />
      ) : pages.isPending ? (
        <Spin />
      ) : entries.length === 0 ? (
        <Empty description={auditMessages.empty} />
      ) : (
        <Row gutter={[24, 24]}>
          <Col xs={24} lg={8}>
            {/* The tree groups the entries loaded so far; its counts grow as the list scrolls. */}
            <Card
              size="small"
              title="Audit tree"
              extra={
                entries.length < total ? (
                  <Typography.Text type="secondary">{`of the ${entries.length} loaded`}</Typography.Text>
                ) : null
              }
            >
              <AuditTree entries={entries} />
            </Card>
          </Col>
          <Col xs={24} lg={16}>
            <Typography.Text type="secondary">
              {entries.length} of {total}
            </Typography.Text>
            <ol aria-label="Audit entries" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {entries.map((entry) => (
                <AuditEntryItem key={entry.id} entry={entry} />
              ))}
            </ol>
            <NextPageTrigger
              active={pages.hasNextPage && !pages.isFetchingNextPage}
              onVisible={() => void pages.fetchNextPage()}
            />
            {pages.isFetchingNextPage && <Spin />}
          </Col>
        </Row>
      )}
    </Space>
  );
}

/** One entry: who, what (type, entity, resource), when, and each changed property. */
function AuditEntryItem({ entry }: { entry: AuditEntry }) {
  return (
    <li style={{ padding: '12px 0', borderBottom: '1px solid rgba(5, 5, 5, 0.06)' }}>
      <Space wrap size={4}>
        <Typography.Text strong>{entry.username}</Typography.Text>
        <Typography.Text>
          {entry.type} {entry.entity}
        </Typography.Text>
        <Typography.Text code>{entry.resource}</Typography.Text>
        {entry.api_key && <Typography.Text type="secondary">(API key {entry.api_key})</Typography.Text>}
      </Space>
      <div>
        <Typography.Text type="secondary">
          <time dateTime={entry.created_on}>{dayjs(entry.created_on).format(TIME_FORMAT)}</time>
        </Typography.Text>
      </div>
      {entry.changes.length > 0 && (
        <ul style={{ margin: '4px 0 0', paddingLeft: 20 }}>
          {entry.changes.map((change) => (
            <li key={change.property}>
              {change.property}: {change.initial ?? '—'} → {change.value ?? '—'}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The loaded entries as a tree: entity → resource → its entries, newest first. */
function AuditTree({ entries }: { entries: AuditEntry[] }) {
  const treeData = useMemo<TreeDataNode[]>(() => {
    const byEntity = new Map<string, Map<string, { resource: string; entries: AuditEntry[] }>>();
    for (const entry of entries) {
      const resources = byEntity.get(entry.entity) ?? new Map();
      byEntity.set(entry.entity, resources);
      // The id groups one thing's entries whatever its name became.
      const key = entry.resource_id ?? entry.resource;
      const node = resources.get(key) ?? { resource: entry.resource, entries: [] };
      resources.set(key, node);
      node.entries.push(entry);
    }
    return [...byEntity].map(([entity, resources]) => ({
      key: `entity:${entity}`,
      title: `${entity} (${[...resources.values()].reduce((n, r) => n + r.entries.length, 0)})`,
      children: [...resources].map(([key, node]) => ({
        key: `resource:${entity}:${key}`,
        title: node.resource,
        children: node.entries.map((entry) => ({
          key: `entry:${entry.id}`,
          title: `${entry.type} by ${entry.username}, ${dayjs(entry.created_on).format(TIME_FORMAT)}`,
          isLeaf: true,
        })),
      })),
    }));
  }, [entries]);
  return <Tree treeData={treeData} selectable={false} defaultExpandAll={false} />;
}

/** Loads the next page when the end of the list scrolls into view. */
function NextPageTrigger({ active, onVisible }: { active: boolean; onVisible: () => void }) {
  const sentinel = useRef<HTMLDivElement>(null);
  const load = useRef(onVisible);
  load.current = onVisible;
  useEffect(() => {
    const element = sentinel.current;
    if (!active || !element) return;
    const observer = new IntersectionObserver((seen) => {
      if (seen.some((item) => item.isIntersecting)) load.current();
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [active]);
  return <div ref={sentinel} data-testid="audit-next-page" style={{ height: 1 }} />;
}
