import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppProviders } from './app/AppProviders.tsx';
import { appRoutes } from './app/routes.tsx';
import { createQueryClient } from './api/query-client.ts';
import './index.css';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

const router = createBrowserRouter(appRoutes);
const queryClient = createQueryClient();

createRoot(container).render(
  <StrictMode>
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
