import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import {
  AUDIT_PAGE_SIZE,
  AUTH_STORAGE_KEY,
  auditMessages,
  type AuditEntry,
  type AuditFilters,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const OWNER_ID = '7c1e1d0e-0000-4000-8000-0000000000a1';
const ADMIN_ID = '7c1e1d0e-0000-4000-8000-0000000000a2';
const filters: AuditFilters = {
  entities: ['Bucket', 'User'],
  users: [
    { id: OWNER_ID, name: 'Olive Owner' },
    { id: ADMIN_ID, name: 'Adam Admin' },
  ],
};

const buildEntry = (n: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  id: String(n),
  author: OWNER_ID,
  username: 'Olive Owner',
  resource: `bucket-${n}`,
  resource_id: `b${n}`,
  entity: 'Bucket',
  type: 'Added',
  created_on: new Date(Date.UTC(2026, 10, 26, 12, 0, 60 - (n % 60))).toISOString(),
  changes: [{ property: 'name', initial: null, value: `bucket-${n}` }],
  api_key: null,
  ...extra,
});

/**
 * jsdom has no IntersectionObserver: this stand-in records what is observed, and `scrollToEnd` tells the page its
 * last row came into view, as a browser would while the user scrolls.
 */
const observers: Array<{ callback: IntersectionObserverCallback; observing: boolean }> = [];
class FakeIntersectionObserver {
  readonly entry: { callback: IntersectionObserverCallback; observing: boolean };
  constructor(callback: IntersectionObserverCallback) {
    this.entry = { callback, observing: false };
    observers.push(this.entry);
  }
  observe() {
    this.entry.observing = true;
  }
  disconnect() {
    this.entry.observing = false;
  }
  unobserve() {}
  takeRecords() {
    return [];
  }
}
function scrollToEnd() {
  act(() => {
    for (const observer of observers.filter((o) => o.observing)) {
      observer.callback([{ isIntersecting: true } as IntersectionObserverEntry], {} as IntersectionObserver);
    }
  });
}

/** The trail behind the fake GET /audits: `all` paged by offset and limit, filtered by entities. */
function trail(all: AuditEntry[]) {
  return (call: RecordedCall) => {
    const query = new URLSearchParams(call.search);
    const offset = Number(query.get('offset') ?? 0);
    const entities = query.get('entities')?.split(',');
    const matching = entities ? all.filter((entry) => entities.includes(entry.entity)) : all;
    return {
      status: 200,
      body: {
        audits: matching.slice(offset, offset + AUDIT_PAGE_SIZE),
        total: matching.length,
        offset,
        limit: AUDIT_PAGE_SIZE,
      },
    };
  };
}

const auditCalls = (calls: RecordedCall[]) =>
  calls.filter((call) => call.path === '/api/audits').map((call) => new URLSearchParams(call.search));
/** The pages asked for, each once (StrictMode's second mount may repeat the first request). */
const offsetsAsked = (calls: RecordedCall[]) => [...new Set(auditCalls(calls).map((q) => q.get('offset')))];

describe('Users Activities /logs (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    observers.length = 0;
    vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows the empty state when the trail holds nothing', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/audits/filters': { status: 200, body: { entities: [], users: [] } },
      'GET /api/audits': trail([]),
    });
    renderAt('/logs');
    expect(await screen.findByRole('heading', { name: auditMessages.title })).toBeInTheDocument();
    expect(await screen.findByText(auditMessages.empty)).toBeInTheDocument();
  });

  it('shows each entry with its author, what and changes; the filters and range change the query', async () => {
    const all = [
      buildEntry(1, {
        entity: 'User',
        type: 'Modified',
        resource: 'ivy@example.com',
        username: 'Adam Admin',
        author: ADMIN_ID,
        changes: [{ property: 'role', initial: 'User', value: 'Admin' }],
      }),
      buildEntry(2),
    ];
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/audits/filters': { status: 200, body: filters },
      'GET /api/audits': trail(all),
    });
    const { user } = renderAt('/logs');

    expect(await screen.findByText('ivy@example.com')).toBeInTheDocument();
    expect(screen.getByText('Modified User')).toBeInTheDocument();
    expect(screen.getByText('Adam Admin')).toBeInTheDocument();
    expect(screen.getByText('role: User → Admin')).toBeInTheDocument();
    expect(screen.getByText('Added Bucket')).toBeInTheDocument();
    expect(auditCalls(calls)[0]?.get('entities')).toBeNull();

    await user.click(screen.getByRole('combobox', { name: 'Entities' }));
    await user.click(await screen.findByTitle('User'));
    await waitFor(() => expect(auditCalls(calls).at(-1)?.get('entities')).toBe('User'));
    await waitFor(() => expect(screen.queryByText('bucket-2')).not.toBeInTheDocument());
    expect(screen.getByText('ivy@example.com')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Users' }));
    await user.click(await screen.findByTitle('Adam Admin'));
    await waitFor(() => expect(auditCalls(calls).at(-1)?.get('users')).toBe(ADMIN_ID));

    await user.click(screen.getByText('Today'));
    await waitFor(() => expect(auditCalls(calls).at(-1)?.get('from')).not.toBeNull());
    const from = new Date(auditCalls(calls).at(-1)?.get('from') ?? '');
    const midnight = new Date();
    midnight.setHours(0, 0, 0, 0);
    expect(from.getTime()).toBe(midnight.getTime());
    expect(auditCalls(calls).at(-1)?.get('entities')).toBe('User');
  });

  it('loads the next page of 20 as the list end scrolls into view, and stops at the total', async () => {
    const all = Array.from({ length: 25 }, (_, i) => buildEntry(i + 1));
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/audits/filters': { status: 200, body: filters },
      'GET /api/audits': trail(all),
    });
    renderAt('/logs');

    expect(await screen.findByText('bucket-20')).toBeInTheDocument();
    expect(screen.queryByText('bucket-21')).not.toBeInTheDocument();
    expect(screen.getByText('20 of 25')).toBeInTheDocument();
    // The tree's counts are of the loaded entries, and it says so until all are loaded.
    expect(screen.getByText('of the 20 loaded')).toBeInTheDocument();

    scrollToEnd();
    expect(await screen.findByText('bucket-25')).toBeInTheDocument();
    expect(offsetsAsked(calls)).toEqual(['0', '20']);
    expect(screen.getByText('25 of 25')).toBeInTheDocument();
    expect(screen.queryByText(/loaded$/)).toBeNull();

    scrollToEnd();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(offsetsAsked(calls)).toEqual(['0', '20']);
  });

  it('exports the current filters as CSV through the authenticated API', async () => {
    const csv = 'time,author,entity,resource,type,property,initial,value\r\n';
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/audits/filters': { status: 200, body: filters },
      'GET /api/audits': trail([buildEntry(1)]),
      'GET /api/audits/export': { status: 200, body: csv },
    });
    const saved: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: vi.fn((blob: Blob) => {
          saved.push(blob);
          return 'blob:audits';
        }),
        revokeObjectURL: vi.fn(),
      }),
    );
    const { user } = renderAt('/logs');
    await screen.findByText('bucket-1');
    await user.click(screen.getByRole('combobox', { name: 'Entities' }));
    await user.click(await screen.findByTitle('Bucket'));
    await user.click(screen.getByRole('button', { name: /Export CSV/ }));

    await waitFor(() => expect(saved).toHaveLength(1));
    const exported = calls.find((call) => call.path === '/api/audits/export');
    expect(exported?.headers.get('Authorization')).toBe('Bearer jwt-1');
    expect(new URLSearchParams(exported?.search).get('entities')).toBe('Bucket');
    const bytes = new Uint8Array((await saved[0]?.arrayBuffer()) ?? new ArrayBuffer(0));
    // The UTF-8 byte order mark first, so a spreadsheet reads names and masked cards right.
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toBe(csv);
  });
});
