import { useEffect } from 'react';
import { Button, Result } from 'antd';
import { useRouteError } from 'react-router';
import { messages } from '@cumulo/contract';

/** Shown when a route fails to render or its code cannot be loaded (for example after a deploy). */
export function RouteErrorPage() {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <Result
      status="error"
      title={messages.generic}
      extra={
        <Button type="primary" onClick={() => window.location.reload()}>
          Reload
        </Button>
      }
    />
  );
}
