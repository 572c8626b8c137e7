import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { AGENT_DEFAULT_PORT, AUTH_STORAGE_KEY } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { agentBaseUrl } from '../agent/agent-client.ts';
import { desktopTexts, visitorPlatform } from './DesktopPage.tsx';

const MAC_SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const WINDOWS_EDGE =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 Edg/124.0';
const LINUX_FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';

describe('visitorPlatform', () => {
  it('reads the platform from the client hint first, else the user agent', () => {
    expect(visitorPlatform({ userAgent: MAC_SAFARI })).toBe('macos');
    expect(visitorPlatform({ userAgent: WINDOWS_EDGE })).toBe('windows');
    expect(visitorPlatform({ userAgent: LINUX_FIREFOX })).toBe('linux');
    expect(visitorPlatform({ userAgent: LINUX_FIREFOX, userAgentData: { platform: 'Windows' } })).toBe(
      'windows',
    );
    expect(visitorPlatform({ userAgent: '', userAgentData: { platform: 'macOS' } })).toBe('macos');
  });

  it('offers no build to a phone or a browser that does not say (an iPhone says "like Mac OS X")', () => {
    expect(visitorPlatform({ userAgent: IPHONE })).toBeNull();
    expect(visitorPlatform({ userAgent: ANDROID })).toBeNull();
    expect(visitorPlatform({ userAgent: 'curl/8.5.0' })).toBeNull();
  });
});

describe('/desktop, public (the API stubbed with vi.stubGlobal fetch; it should call none)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("offers the visitor's platform first, the others as links, and explains starting, pairing and folders signed out", async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(MAC_SAFARI);
    const calls = stubApi({});
    renderAt('/desktop');

    expect(await screen.findByRole('heading', { name: desktopTexts.title })).toBeInTheDocument();
    expect(screen.getByText(desktopTexts.what)).toHaveTextContent('5 MiB blocks over 5 connections');
    expect(screen.getByText(desktopTexts.keys)).toBeInTheDocument();
    expect(screen.getByText(desktopTexts.node)).toHaveTextContent('Node.js 22');

    const download = within(screen.getByRole('region', { name: 'Download' }));
    const primary = download.getByRole('link', { name: 'Download for macOS' });
    expect(primary).toHaveAttribute('href', '/api/agent/download/macos');
    expect(primary).toHaveClass('ant-btn-primary');
    expect(download.getByRole('link', { name: 'Windows' })).toHaveAttribute(
      'href',
      '/api/agent/download/windows',
    );
    expect(download.getByRole('link', { name: 'Linux' })).toHaveAttribute(
      'href',
      '/api/agent/download/linux',
    );
    expect(download.queryByRole('link', { name: 'macOS' })).toBeNull();

    const pair = within(screen.getByRole('region', { name: 'Start and pair' }));
    // Started without --server, the agent would serve http://localhost:8080 and refuse this page's origin.
    expect(pair.getByText(`cumulo-agent --server ${window.location.origin}`)).toBeInTheDocument();
    expect(pair.getByRole('link', { name: 'sign in' })).toHaveAttribute('href', '/login?returnUrl=%2Fftx');
    expect(pair.getByText(`cumulo-agent pair <code> --server ${window.location.origin}`)).toBeInTheDocument();
    expect(pair.getByRole('link', { name: 'profile page' })).toHaveAttribute('href', '/profile');
    expect(screen.getByText('cumulo-agent add <folder>')).toBeInTheDocument();
    expect(screen.getByText('cumulo-agent install-link')).toBeInTheDocument();
    // Public: no call at all, so no 401 can send the visitor to sign in.
    expect(calls).toEqual([]);
  });

  it('signed in, sends the user to Pair on the Cumulo Transfer page; a phone gets all three builds', async () => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(IPHONE);
    stubApi({});
    renderAt('/desktop');

    const pair = within(await screen.findByRole('region', { name: 'Start and pair' }));
    expect(pair.getByRole('link', { name: 'Cumulo Transfer page' })).toHaveAttribute('href', '/ftx');
    const download = within(screen.getByRole('region', { name: 'Download' }));
    expect(download.getByText(desktopTexts.unknownPlatform)).toBeInTheDocument();
    for (const title of ['Windows', 'macOS', 'Linux'])
      expect(download.getByRole('link', { name: `Download for ${title}` })).not.toHaveClass(
        'ant-btn-primary',
      );
  });

  it('saves another agent port for this browser, and refuses one out of range', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(LINUX_FIREFOX);
    stubApi({});
    const { user } = renderAt('/desktop');
    const port = await screen.findByRole('textbox', { name: 'Agent port' });
    expect(port).toHaveValue(String(AGENT_DEFAULT_PORT));

    // Out of range, or a number written otherwise than in digits ('1e3' would have been port 1000).
    for (const typed of ['70000', '1e3', '0x1F90']) {
      await user.clear(port);
      await user.type(port, typed);
      await user.click(screen.getByRole('button', { name: 'Save' }));
      expect(screen.getByRole('status')).toHaveTextContent(desktopTexts.portInvalid);
      expect(agentBaseUrl()).toBe(`http://127.0.0.1:${AGENT_DEFAULT_PORT}`);
    }

    await user.clear(port);
    await user.type(port, '48000');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByRole('status')).toHaveTextContent(desktopTexts.portSaved(48000));
    expect(agentBaseUrl()).toBe('http://127.0.0.1:48000');
  });
});
