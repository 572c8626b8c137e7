import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_URL_SCHEME } from '@cumulo/contract';

/**
 * `cumulo-agent install-link`: registers the `cumulo-agent://` URL scheme so the page's "Launch" starts the agent.
 * `command` is how this agent is started (node and its script, absolute), plus the flags to keep.
 */
export async function installLink(command: string[]): Promise<string> {
  const quoted = command.map((part) => (/[\s"]/.test(part) ? `"${part.replace(/"/g, '\\"')}"` : part));
  if (process.platform === 'linux') {
    const folder = path.join(os.homedir(), '.local/share/applications');
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, 'cumulo-agent.desktop');
    await writeFile(
      file,
      [
        '[Desktop Entry]',
        'Type=Application',
        'Name=Cumulo transfer agent',
        // A terminal, so that pairing can be confirmed and the agent seen running.
        `Exec=${quoted.join(' ')} start`,
        'Terminal=true',
        'NoDisplay=true',
        `MimeType=x-scheme-handler/${AGENT_URL_SCHEME};`,
        '',
      ].join('\n'),
    );
    try {
      execFileSync('xdg-mime', ['default', 'cumulo-agent.desktop', `x-scheme-handler/${AGENT_URL_SCHEME}`]);
      execFileSync('update-desktop-database', [folder], { stdio: 'ignore' });
    } catch {
      return `Wrote ${file}. Run: xdg-mime default cumulo-agent.desktop x-scheme-handler/${AGENT_URL_SCHEME}`;
    }
    return `Registered ${AGENT_URL_SCHEME}:// with ${file}.`;
  }
  if (process.platform === 'win32') {
    const key = `HKCU\\Software\\Classes\\${AGENT_URL_SCHEME}`;
    const run = (args: string[]) => execFileSync('reg', args, { stdio: 'ignore' });
    run(['add', key, '/ve', '/d', 'URL:Cumulo transfer agent', '/f']);
    run(['add', key, '/v', 'URL Protocol', '/d', '', '/f']);
    run(['add', `${key}\\shell\\open\\command`, '/ve', '/d', `${quoted.join(' ')} start`, '/f']);
    return `Registered ${AGENT_URL_SCHEME}:// in ${key}.`;
  }
  return [
    `macOS has no command-line way to register a URL scheme for a script. To let the page's Launch start the agent:`,
    `1. Open Script Editor, paste:  do shell script "${quoted.join(' ').replace(/"/g, '\\"')} start > /dev/null 2>&1 &"`,
    `2. Save it as an Application named "Cumulo Agent".`,
    `3. In the app's Contents/Info.plist add CFBundleURLTypes with CFBundleURLSchemes = (${AGENT_URL_SCHEME}).`,
    '4. Open the app once. Until then, start the agent from a terminal: cumulo-agent start',
  ].join('\n');
}
