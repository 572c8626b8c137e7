import { render, screen, waitFor } from '@testing-library/react';
import { Modal } from 'antd';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from './AppProviders.tsx';
import { createQueryClient } from '../api/query-client.ts';

/** A system motion preference, as window.matchMedia answers it. */
function preferReducedMotion(reduce: boolean) {
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        matches: reduce && query === '(prefers-reduced-motion: reduce)',
        media: query,
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      }) as MediaQueryList,
  );
}

function openDialog() {
  render(
    <AppProviders queryClient={createQueryClient()}>
      <Modal open title="Something Went Wrong" />
    </AppProviders>,
  );
  return screen.getByRole('dialog', { name: 'Something Went Wrong' });
}

describe('AppProviders', () => {
  afterEach(() => vi.restoreAllMocks());

  it('opens dialogs with their zoom by default', async () => {
    preferReducedMotion(false);
    const dialog = openDialog();
    await waitFor(() => expect(dialog.className).toMatch(/ant-zoom-appear-active/));
  });

  it('opens dialogs without animation for people who asked their system for reduced motion', async () => {
    preferReducedMotion(true);
    const dialog = openDialog();
    await waitFor(() => expect(dialog.className).not.toMatch(/ant-zoom/));
  });
});
