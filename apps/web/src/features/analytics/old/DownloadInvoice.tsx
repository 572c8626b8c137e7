import { useState } from 'react';
import { App, Button, Card, Flex, Table, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { BILLING_REPORT_DOCUMENTS, type AnalyticsInvoices } from '@cumulo/contract';
import { describeError } from '../../../api/client.ts';
import { ByteSize } from '../../../ui/ByteSize.tsx';
import { DateText } from '../../../ui/DateText.tsx';
import { invoiceDownloadUrl, useInvoiceFiles } from '../analytics-api.ts';
import { TabState } from './TabState.tsx';

type InvoiceFile = AnalyticsInvoices['files'][number];

/**
 * Download Invoice (spec 002 §2): the billing bucket's files a page at a time, each with a download button that
 * asks for a short-lived link and opens it, and the four AWS documents that explain the reports.
 */
export function DownloadInvoice({ cloudId }: { cloudId: string }) {
  const { message } = App.useApp();
  // The tokens of the pages before this one, so Previous can go back (the bucket listing only goes forward).
  const [tokens, setTokens] = useState<Array<string | undefined>>([]);
  const [token, setToken] = useState<string | undefined>(undefined);
  const [downloading, setDownloading] = useState<string | null>(null);
  const files = useInvoiceFiles(cloudId, token);

  const download = async (key: string) => {
    setDownloading(key);
    try {
      window.open(await invoiceDownloadUrl(cloudId, key), '_blank', 'noopener');
    } catch (error) {
      void message.error(describeError(error));
    } finally {
      setDownloading(null);
    }
  };

  return (
    <Flex vertical gap={16}>
      <TabState query={files}>
        {(page) => (
          <Card size="small" title={`Files of the billing bucket ${page.bucket}`}>
            <Table<InvoiceFile>
              aria-label="Billing bucket files"
              rowKey="key"
              dataSource={page.files}
              pagination={false}
              locale={{ emptyText: 'The billing bucket holds no file.' }}
              columns={[
                { title: 'File', dataIndex: 'key' },
                { title: 'Size', key: 'size', render: (_, file) => <ByteSize bytes={file.size} /> },
                {
                  title: 'Last modified',
                  key: 'modified',
                  render: (_, file) => (file.last_modified ? <DateText value={file.last_modified} /> : '—'),
                },
                {
                  title: 'Download',
                  key: 'download',
                  render: (_, file) => (
                    <Button
                      icon={<DownloadOutlined />}
                      aria-label={`Download ${file.key}`}
                      loading={downloading === file.key}
                      onClick={() => void download(file.key)}
                    />
                  ),
                },
              ]}
            />
            <Flex gap={8} justify="end" style={{ marginTop: 12 }}>
              <Button
                disabled={tokens.length === 0}
                onClick={() => {
                  setToken(tokens.at(-1));
                  setTokens(tokens.slice(0, -1));
                }}
              >
                Previous page
              </Button>
              <Button
                disabled={!page.next_token}
                onClick={() => {
                  setTokens([...tokens, token]);
                  setToken(page.next_token ?? undefined);
                }}
              >
                Next page
              </Button>
            </Flex>
          </Card>
        )}
      </TabState>
      <Card size="small" title="About the billing reports">
        <Flex vertical gap={4} component="ul" style={{ margin: 0, paddingLeft: 20 }}>
          {BILLING_REPORT_DOCUMENTS.map((document) => (
            <li key={document.url}>
              <Typography.Link href={document.url} target="_blank" rel="noopener noreferrer">
                {document.title}
              </Typography.Link>
            </li>
          ))}
        </Flex>
      </Card>
    </Flex>
  );
}
