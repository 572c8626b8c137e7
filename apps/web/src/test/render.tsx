import { StrictMode } from 'react';
import { render } from '@testing-library/react';
import { ConfigProvider } from 'antd';
import { StyleProvider } from '@ant-design/cssinjs';
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
      {/*
        antd's styles go to an element outside the document. jsdom's getComputedStyle, which every getByRole and
        every tooltip alignment calls for each ancestor, matches every rule of every sheet in the document: the
        CSS variables antd injects even with zeroRuntime (one rule of ~500 properties per component) made the
        slowest screens 30-50 % slower. What the tests assert (text, roles, enabled state, DOM presence) does
        not depend on those styles.
      */}
      <StyleProvider container={document.createElement('div')}>
        <AppProviders queryClient={queryClient}>
          {/*
            jsdom runs no CSS animations, so a closing modal would otherwise never leave the page. And antd's
            runtime CSS (~1500 rules) makes every jsdom getComputedStyle call cost ~35 ms, which a tooltip's
            alignment makes for each ancestor on every keystroke: the tests run antd without runtime styles.
          */}
          <ConfigProvider theme={{ token: { motion: false }, zeroRuntime: true }}>
            <RouterProvider router={router} />
          </ConfigProvider>
        </AppProviders>
      </StyleProvider>
    </StrictMode>,
  );
  const location = () => `${router.state.location.pathname}${router.state.location.search}`;
  return { ...view, router, queryClient, user, location };
}
