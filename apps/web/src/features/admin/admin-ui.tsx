import { useState, type ReactNode } from 'react';
import {
  Alert,
  App,
  Button,
  Empty,
  Flex,
  Input,
  Typography,
  type FormInstance,
  type TableColumnsType,
} from 'antd';
import { Link } from 'react-router';
import { DownloadOutlined } from '@ant-design/icons';
import { ADMIN_PAGE_SIZE, ADMIN_SEARCH_MAX, type AdminColumn, type ApiErrorBody } from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { browserTimeZone, downloadAdminCsv, type AdminQuery } from './admin-api.ts';

/**
 * antd columns from the contract's column list: the same titles and cell texts the server's CSV writes, so the
 * downloaded report reads as the table does.
 */
export function tableColumns<Row>(list: ReadonlyArray<AdminColumn<Row>>): TableColumnsType<Row> {
  const tz = browserTimeZone();
  return list.map((column) => ({
    title: column.title,
    key: column.title,
    render: (_: unknown, row: Row) => column.cell(row, tz),
  }));
}

/** The pager of every admin table: 10 rows a page over the server's total (spec 002 §9). */
export function pager(page: number, total: number, onChange: (page: number) => void) {
  return {
    current: page,
    pageSize: ADMIN_PAGE_SIZE,
    total,
    showSizeChanger: false,
    onChange,
  };
}

export const noData = { emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No data" /> };

export function LoadFailure({ error }: { error: unknown }) {
  return <Alert type="error" showIcon title={describeError(error)} />;
}

/** "Download Report": the list's CSV under the filter the table shows. */
export function DownloadReport({
  path,
  query,
  fileName,
}: {
  path: string;
  query: AdminQuery;
  fileName: string;
}) {
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      await downloadAdminCsv(path, query, fileName);
    } catch (error) {
      void message.error(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button type="link" icon={<DownloadOutlined />} loading={busy} onClick={() => void download()}>
      Download Report
    </Button>
  );
}

/**
 * A 400's field messages under the form's fields (the server's body keys are the form's field names); true when
 * some field took one, so the caller shows the general text otherwise.
 */
export function showFieldErrors(form: FormInstance, error: unknown, fields: readonly string[]): boolean {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.body || typeof error.body !== 'object')
    return false;
  const errors = (error.body as ApiErrorBody).errors ?? {};
  const taken = fields.flatMap((name) => {
    const list = errors[name];
    return list?.length ? [{ name, errors: list }] : [];
  });
  form.setFields(taken);
  return taken.length > 0;
}

/**
 * The top of the Account and Users lists (spec 002 §2): the heading with its "Add New …" button, then the search
 * box and the "Download Report" heading of the table below.
 */
export function AdminListHeader({
  title,
  add,
  searchLabel,
  onSearch,
  download,
}: {
  title: string;
  add: { to: string; label: string; icon: ReactNode };
  searchLabel: string;
  onSearch: (search: string) => void;
  download: ReactNode;
}) {
  return (
    <>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          {title}
        </Typography.Title>
        <Link to={add.to}>
          <Button type="primary" icon={add.icon}>
            {add.label}
          </Button>
        </Link>
      </Flex>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Input.Search
          aria-label={searchLabel}
          placeholder={searchLabel}
          allowClear
          maxLength={ADMIN_SEARCH_MAX}
          style={{ maxWidth: 320 }}
          onSearch={(value) => onSearch(value.trim())}
        />
        <Typography.Title level={5} style={{ margin: 0 }}>
          {download}
        </Typography.Title>
      </Flex>
    </>
  );
}
