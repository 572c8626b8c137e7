import type { ReactNode } from 'react';
import { Alert, Spin } from 'antd';
import { describeError } from '../../../api/client.ts';

/** A tab's answer as TanStack Query gives it: a spinner while loading, the error in words, else the tab. */
export function TabState<T>({
  query,
  children,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean };
  children: (data: T) => ReactNode;
}) {
  if (query.error) return <Alert type="error" showIcon title={describeError(query.error)} />;
  if (query.isPending || query.data === undefined)
    return (
      <div style={{ display: 'flex', justifyContent: 'center', padding: 48 }}>
        <Spin size="large" aria-label="Loading" />
      </div>
    );
  return <>{children(query.data)}</>;
}
