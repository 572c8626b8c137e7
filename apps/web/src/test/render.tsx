import { StrictMode } from 'react';
import { render } from '@testing-library/react';
import { ConfigProvider } from 'antd';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { AppProviders } from '../app/AppProviders.tsx';
import { appRoutes } from '../app/routes.tsx';
import { createQueryClient } from '../api/query-client.ts';

/** Renders the app (or the given routes) at a path, as the browser would, in StrictMode. */
export function renderAt(path: string, routes: RouteObject[] = appRoutes) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const queryClient = createQueryClient();
  const user = userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
  const view = render(
    <StrictMode>
      <AppProviders queryClient={queryClient}>
        {/*
          jsdom runs no CSS animations, so a closing modal would otherwise never leave the page. And antd's
          runtime CSS (~1500 rules) makes every jsdom getComputedStyle call cost ~35 ms, which a tooltip's
          alignment makes for each ancestor on every keystroke: the tests run antd without runtime styles.
          What they assert (text, roles, enabled state, DOM presence) does not depend on those styles.
        */}
        <ConfigProvider theme={{ token: { motion: false }, zeroRuntime: true }}>
          <RouterProvider router={router} />
        </ConfigProvider>
      </AppProviders>
    </StrictMode>,
  );
  const location = () => `${router.state.location.pathname}${router.state.location.search}`;
  return { ...view, router, queryClient, user, location };
}
