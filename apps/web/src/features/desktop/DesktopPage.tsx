import { useState, type ReactNode } from 'react';
import { Button, Input } from 'antd';
import { Link } from 'react-router';
import {
  AGENT_BLOCK_SIZE,
  AGENT_CLIENTS,
  AGENT_DEFAULT_PORT,
  AGENT_PLATFORMS,
  AGENT_PLATFORM_TITLES,
  type AgentPlatform,
} from '@cumulo/contract';
import { API_BASE } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { agentPort, setAgentPort } from '../agent/agent-client.ts';

/** What the browser says about its machine: the client hint where there is one, else the user agent. */
export interface NavigatorHints {
  userAgent: string;
  userAgentData?: { platform?: string };
}

/**
 * The agent build for the visitor's machine, or null where no build runs (a phone, a tablet, a Chromebook) or the
 * browser does not say. Phones come first: an iPhone's user agent says "like Mac OS X", an Android's "Linux".
 */
export function visitorPlatform(hints: NavigatorHints): AgentPlatform | null {
  const said = (hints.userAgentData?.platform || hints.userAgent).toLowerCase();
  if (/android|iphone|ipad|ipod|cros|chrome os/.test(said)) return null;
  if (/windows|win32|win64/.test(said)) return 'windows';
  if (/macos|mac os|macintosh|macintel/.test(said)) return 'macos';
  if (/linux|x11/.test(said)) return 'linux';
  return null;
}

const agentDownloadUrl = (platform: AgentPlatform) => `${API_BASE}/agent/download/${platform}`;

export const desktopTexts = {
  title: 'Cumulo Transfer Agent',
  what: `The Cumulo Transfer Agent (ftX) moves files between this machine, or a file server, and your cloud buckets. It sends every file in ${AGENT_BLOCK_SIZE / (1024 * 1024)} MiB blocks over ${AGENT_CLIENTS} connections at once, carries on where it stopped after the agent or the machine restarts, and verifies every file once it has arrived.`,
  keys: 'It never holds your cloud keys: for each transfer it asks Cumulo for short-lived signed links, so your organisation’s access rules, quotas and audit apply to it as to the web app.',
  node: 'The agent runs on Linux, macOS and Windows and needs Node.js 22 or later.',
  unknownPlatform: 'Choose the build for the machine the agent will run on.',
  portSaved: (port: number) => `This browser now looks for the agent on port ${port}.`,
  portInvalid: 'Enter a port between 1 and 65535.',
} as const;

function Command({ children }: { children: string }) {
  return (
    <pre
      style={{
        background: '#f5f5f5',
        border: '1px solid #f0f0f0',
        borderRadius: 6,
        padding: '8px 12px',
        margin: '0 0 12px',
        overflowX: 'auto',
      }}
    >
      <code>{children}</code>
    </pre>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} style={{ marginTop: 24 }}>
      <h2 style={{ fontSize: 18, fontWeight: 600, margin: '0 0 8px' }}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * /desktop (spec 000 §2: public, reachable signed out): what the transfer agent is, its download for the visitor's
 * platform (the others as links), and how to start it, pair it, add folders and register its launch link. Plain
 * elements and two light antd controls: it must not pull the app's heavy chunks.
 */
export function DesktopPage() {
  useDocumentTitle(desktopTexts.title);
  const [detected] = useState(() => visitorPlatform(navigator as Navigator & NavigatorHints));
  const signedIn = getStoredToken() !== null;
  const origin = window.location.origin;
  const others = AGENT_PLATFORMS.filter((platform) => platform !== detected);

  return (
    <main className="auth-page">
      <div className="auth-column" style={{ maxWidth: 760 }}>
        <div className="auth-brand">Cumulo</div>
        <article className="auth-card" aria-labelledby="desktop-title">
          <h1 id="desktop-title" className="auth-title">
            {desktopTexts.title}
          </h1>
          <p>{desktopTexts.what}</p>
          <p>{desktopTexts.keys}</p>

          <Section title="Download">
            {detected ? (
              <>
                <Button type="primary" size="large" href={agentDownloadUrl(detected)} download>
                  Download for {AGENT_PLATFORM_TITLES[detected]}
                </Button>
                <p style={{ marginTop: 12 }}>
                  Other platforms:{' '}
                  {others.map((platform, index) => (
                    <span key={platform}>
                      {index > 0 ? ' · ' : null}
                      <a href={agentDownloadUrl(platform)} download>
                        {AGENT_PLATFORM_TITLES[platform]}
                      </a>
                    </span>
                  ))}
                </p>
              </>
            ) : (
              <>
                <p>{desktopTexts.unknownPlatform}</p>
                <div style={{ display: 'flex', gap: 8, flexWrap: 'wrap', marginBottom: 12 }}>
                  {AGENT_PLATFORMS.map((platform) => (
                    <Button key={platform} href={agentDownloadUrl(platform)} download>
                      Download for {AGENT_PLATFORM_TITLES[platform]}
                    </Button>
                  ))}
                </div>
              </>
            )}
            <p>{desktopTexts.node}</p>
          </Section>

          <Section title="Start and pair">
            <p>Unzip the download and start the agent in a terminal, naming this Cumulo:</p>
            <Command>{`cumulo-agent --server ${origin}`}</Command>
            {signedIn ? (
              <p>
                Then open the <Link to="/ftx">Cumulo Transfer page</Link> and choose Pair. Confirm the code
                the page shows in the agent’s terminal.
              </p>
            ) : (
              <p>
                Then <Link to={`/login?returnUrl=${encodeURIComponent('/ftx')}`}>sign in</Link>, open the
                Cumulo Transfer page and choose Pair. Confirm the code the page shows in the agent’s terminal.
              </p>
            )}
            <p>
              On a machine without a browser (a file server), create a pairing code on your{' '}
              <Link to="/profile">profile page</Link> and pair from its shell:
            </p>
            <Command>{`cumulo-agent pair <code> --server ${origin}`}</Command>
          </Section>

          <Section title="Add folders">
            <p>
              The agent shows Cumulo only the folders you add to it, and nothing outside them. Add one with:
            </p>
            <Command>{'cumulo-agent add <folder>'}</Command>
          </Section>

          <Section title="Launch from the browser">
            <p>
              Register the agent’s launch link once, so that “Launch ftX client” on the transfer pages starts
              it:
            </p>
            <Command>cumulo-agent install-link</Command>
          </Section>

          <Section title="Agent port">
            <AgentPortField />
          </Section>
        </article>
      </div>
    </main>
  );
}

/** The agent listens on 127.0.0.1:AGENT_DEFAULT_PORT; started with --port, this browser is told the other port. */
function AgentPortField() {
  const [value, setValue] = useState(String(agentPort()));
  const [note, setNote] = useState<string | null>(null);
  const save = () => {
    // Digits only: Number() would also take '1e3' or '0x1F90' and save another port than the one typed.
    const port = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      setNote(desktopTexts.portInvalid);
      return;
    }
    setAgentPort(port);
    setNote(desktopTexts.portSaved(port));
  };
  return (
    <>
      <p>
        The agent listens on 127.0.0.1 port {AGENT_DEFAULT_PORT}. If you start it with <code>--port</code>,
        tell this browser the port:
      </p>
      <div style={{ display: 'flex', gap: 8, maxWidth: 320 }}>
        <Input
          aria-label="Agent port"
          inputMode="numeric"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          onPressEnter={save}
        />
        <Button onClick={save}>Save</Button>
      </div>
      {note ? (
        <p role="status" style={{ marginTop: 8 }}>
          {note}
        </p>
      ) : null}
    </>
  );
}
