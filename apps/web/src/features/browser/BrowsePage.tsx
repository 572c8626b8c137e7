import { useCallback } from 'react';
import { Space, Typography } from 'antd';
import { useSearchParams } from 'react-router';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { SharedBucketBrowser } from '../sharing/SharedBucketBrowser.tsx';
import type { BrowserLocation } from './BucketBrowser.tsx';

/** /browse?account=&bucket=&path= — the bucket browser on its own; the location lives in the address. */
export function BrowsePage() {
  useDocumentTitle('Browse');
  const [params, setParams] = useSearchParams();
  const accountId = params.get('account');
  const bucket = params.get('bucket');
  const location: BrowserLocation | null =
    accountId && bucket ? { accountId, bucket, path: params.get('path') ?? '' } : null;

  const onLocationChange = useCallback(
    (next: BrowserLocation | null) => {
      setParams(
        next
          ? { account: next.accountId, bucket: next.bucket, ...(next.path ? { path: next.path } : {}) }
          : {},
      );
    },
    [setParams],
  );

  // Spaced like the other pages: a bare title kept antd's top margin and sat lower than every other page's.
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Browse
      </Typography.Title>
      <SharedBucketBrowser location={location} onLocationChange={onLocationChange} />
    </Space>
  );
}
