import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { PageSpinner } from '../ui/PageSpinner.tsx';
import { ApiErrorModals } from './ApiErrorModals.tsx';

/** Root of every route: lazy pages load inside it and the shared API error modals live beside them. */
export function RootShell() {
  return (
    <>
      <Suspense fallback={<PageSpinner />}>
        <Outlet />
      </Suspense>
      <ApiErrorModals />
    </>
  );
}
