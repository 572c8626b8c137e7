import { useState, type ReactNode } from 'react';
import { Alert, App, Button, List, Space, Spin, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { BILLING_REPORT_DOCUMENTS, formatBytes, type AnalyticsInvoices } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DateText } from '../../ui/DateText.tsx';
import { invoiceDownloadUrl, useInvoiceFiles } from './analytics-api.ts';
import { Panel } from './AnalyticsPanel.tsx';
import { analyticsTexts } from './analytics-texts.ts';

const cell = { padding: '6px 8px', borderBottom: '1px solid #f0f0f0', textAlign: 'left' } as const;

/**
 * /analytics Invoices: the billing bucket's files a page at a time ("Load more" follows `next_token`), each with a
 * download, and the four AWS documents on billing reports (spec 002 §2 "Download Invoice").
 */
export function InvoicesPage({ cloudId }: { cloudId: string }) {
  // One entry per page read so far: the first has no token, each next one the token its predecessor returned.
  const [tokens, setTokens] = useState<Array<string | undefined>>([undefined]);
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Panel title="Billing bucket files">
        <table aria-label="Billing bucket files" style={{ width: '100%', borderCollapse: 'collapse' }}>
          <thead>
            <tr>
              <th style={cell}>File</th>
              <th style={cell}>Size</th>
              <th style={cell}>Modified</th>
              <th style={cell}>Download</th>
            </tr>
          </thead>
          {tokens.map((token, index) => (
            <InvoiceFilesPage
              key={token ?? ''}
              cloudId={cloudId}
              token={token}
              last={index === tokens.length - 1}
              first={index === 0}
              onMore={(next) => setTokens((read) => [...read, next])}
            />
          ))}
        </table>
      </Panel>
      <Panel title="Billing report documents">
        <List
          size="small"
          dataSource={BILLING_REPORT_DOCUMENTS}
          renderItem={(doc) => (
            <List.Item key={doc.url}>
              <Typography.Link href={doc.url} target="_blank" rel="noopener noreferrer">
                {doc.title}
              </Typography.Link>
            </List.Item>
          )}
        />
      </Panel>
    </Space>
  );
}

function InvoiceFilesPage({
  cloudId,
  token,
  first,
  last,
  onMore,
}: {
  cloudId: string;
  token: string | undefined;
  first: boolean;
  last: boolean;
  onMore: (token: string) => void;
}) {
  const files = useInvoiceFiles(cloudId, token);
  const wide = (content: ReactNode) => (
    <tbody>
      <tr>
        <td colSpan={4} style={cell}>
          {content}
        </td>
      </tr>
    </tbody>
  );
  if (files.isError) return wide(<Alert type="error" showIcon title={describeError(files.error)} />);
  if (files.isPending) return wide(<Spin aria-label="Loading" />);
  const page: AnalyticsInvoices = files.data;
  if (first && page.files.length === 0)
    return wide(
      <Typography.Text type="secondary">{analyticsTexts.emptyBillingBucket(page.bucket)}</Typography.Text>,
    );
  const nextToken = page.next_token;
  return (
    <tbody>
      {page.files.map((file) => (
        <tr key={file.key}>
          <td style={{ ...cell, wordBreak: 'break-all' }}>{file.key}</td>
          <td style={cell}>{formatBytes(file.size)}</td>
          <td style={cell}>{file.last_modified && <DateText value={file.last_modified} />}</td>
          <td style={cell}>
            <DownloadButton cloudId={cloudId} fileKey={file.key} />
          </td>
        </tr>
      ))}
      {last && nextToken && (
        <tr>
          <td colSpan={4} style={{ ...cell, textAlign: 'center' }}>
            <Button onClick={() => onMore(nextToken)}>Load more</Button>
          </td>
        </tr>
      )}
    </tbody>
  );
}

/** Asks for a short-lived link to the file, then opens it: the browser downloads it from the bucket. */
function DownloadButton({ cloudId, fileKey }: { cloudId: string; fileKey: string }) {
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      window.open(await invoiceDownloadUrl(cloudId, fileKey), '_blank', 'noopener');
    } catch (error) {
      void message.error(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button
      size="small"
      icon={<DownloadOutlined aria-hidden />}
      loading={busy}
      aria-label={`Download ${fileKey}`}
      onClick={() => void download()}
    >
      Download
    </Button>
  );
}
