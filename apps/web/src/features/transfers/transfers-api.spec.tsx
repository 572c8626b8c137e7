import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BATCH_STATUS } from '@cumulo/contract';
import { MISSED_MESSAGE_POLL_MS } from '../../api/realtime.ts';
import { stubApi } from '../../test/fake-api.ts';
import { buildBatch } from './transfer-factories.ts';
import { useTransferList } from './transfers-api.ts';

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

describe('batch history (GET /transfer/get_all stubbed, no /rm message at all)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('re-reads itself while a batch is Ongoing, so a batch that ended unannounced shows Completed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let status: number = BATCH_STATUS.ongoing;
    const calls = stubApi({
      'GET /api/transfer/get_all': () => ({
        status: 200,
        body: { items: [buildBatch({ transferStatus: status })], total: 1, page: 1, pagesize: 50 },
      }),
    });
    const { result } = renderHook(() => useTransferList(1, 1), { wrapper });
    await waitFor(() => expect(result.current.data?.items[0]?.transferStatus).toBe(BATCH_STATUS.ongoing));

    status = BATCH_STATUS.completed;
    await act(() => vi.advanceTimersByTimeAsync(MISSED_MESSAGE_POLL_MS));
    await waitFor(() => expect(result.current.data?.items[0]?.transferStatus).toBe(BATCH_STATUS.completed));

    // Nothing live is left: no more reading.
    const reads = calls.length;
    await act(() => vi.advanceTimersByTimeAsync(3 * MISSED_MESSAGE_POLL_MS));
    expect(calls.length).toBe(reads);
  });
});
