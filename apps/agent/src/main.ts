import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_DEFAULT_PORT, agentHeartbeat } from '@cumulo/contract';
import { Agent, redeemCode } from './agent.ts';
import {
  AGENT_VERSION,
  DEFAULT_SERVER,
  defaultHome,
  ensureHome,
  loadConfig,
  normaliseServer,
  parsePort,
  saveConfig,
  type RunOptions,
} from './config.ts';
import { installLink } from './install-link.ts';
import { bandwidth, parseRate } from './transfers/bandwidth.ts';
import { createLocalApi } from './local-api.ts';
import { rootsOf } from './local-folders.ts';

const HELP = `cumulo-agent ${AGENT_VERSION} — the Cumulo transfer agent

Usage:
  cumulo-agent [start] [--port N] [--server URL] [--origin URL] [--home DIR] [--bwlimit RATE]
      Serve the Cumulo page on http://127.0.0.1:<port> (default ${AGENT_DEFAULT_PORT}). --bwlimit paces all
      transfers together: bytes a second, or with K, M or G (10M is 10 MiB/s); off by default.
  cumulo-agent pair <code> [--server URL]   Pair with your Cumulo account (code from your profile page).
  cumulo-agent unpair                       Forget the device token.
  cumulo-agent add <folder>                 Let the page see and transfer this folder.
  cumulo-agent remove <folder>              Stop sharing a folder with the page.
  cumulo-agent folders                      List the added folders.
  cumulo-agent install-link                 Register the cumulo-agent:// link the page's Launch opens.
  cumulo-agent --help | --version

Environment: CUMULO_AGENT_PORT, CUMULO_SERVER_URL (default ${DEFAULT_SERVER}), CUMULO_ORIGIN, CUMULO_AGENT_HOME
(default ~/.cumulo-agent), CUMULO_AGENT_BWLIMIT.
`;

class UsageError extends Error {}

async function options(values: {
  port?: string;
  server?: string;
  origin?: string;
  home?: string;
}): Promise<RunOptions> {
  const home = path.resolve(values.home ?? defaultHome());
  const saved = await loadConfig(home);
  const server = normaliseServer(
    values.server ?? process.env.CUMULO_SERVER_URL ?? saved.server ?? DEFAULT_SERVER,
  );
  const origin = new URL(values.origin ?? process.env.CUMULO_ORIGIN ?? server).origin;
  return { home, port: parsePort(values.port ?? process.env.CUMULO_AGENT_PORT), server, origin };
}

/** Whether an agent already answers on the port (the launch link may start a second one). */
async function runningAgent(port: number): Promise<boolean> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/heartbeat`, { signal: AbortSignal.timeout(2000) });
    return agentHeartbeat.safeParse(await answer.json()).success;
  } catch {
    return false;
  }
}

async function start(run: RunOptions): Promise<void> {
  await ensureHome(run.home);
  const agent = await Agent.open(run);
  const server = createLocalApi(agent);
  const listening = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
    );
    // Loopback only: the agent is never reachable from another machine.
    server.listen(run.port, '127.0.0.1', () => resolve(true));
  });
  if (!listening) {
    if (await runningAgent(run.port)) {
      process.stdout.write(`The transfer agent is already running on port ${run.port}.\n`);
      process.exit(0);
    }
    throw new UsageError(`Port ${run.port} is taken by another program. Start with --port N.`);
  }
  agent.listenToTerminal();
  const resumed = await agent.transfers.resume();
  const config = await loadConfig(run.home);
  process.stdout.write(
    [
      `Cumulo transfer agent ${AGENT_VERSION} on http://127.0.0.1:${run.port}`,
      `Server: ${run.server} (page origin ${run.origin})`,
      agent.paired
        ? `Paired as ${config.device?.email ?? ''} (${config.device?.organization ?? ''})`
        : 'Not paired: pair from the Cumulo page, or run `cumulo-agent pair <code>`.',
      config.folders.length > 0
        ? `Folders: ${rootsOf(config.folders)
            .map((root) => `${root.name} = ${root.folder}`)
            .join(', ')}`
        : 'No folders added yet: run `cumulo-agent add <folder>`.',
      ...(bandwidth.rate > 0 ? [`Bandwidth limit: ${(bandwidth.rate / 1024 / 1024).toFixed(2)} MiB/s`] : []),
      ...(resumed > 0 ? [`Resuming ${resumed} unfinished transfer${resumed === 1 ? '' : 's'}.`] : []),
      '',
    ].join('\n'),
  );
  const stop = () => {
    void agent.transfers.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      server: { type: 'string' },
      origin: { type: 'string' },
      home: { type: 'string' },
      bwlimit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) return void process.stdout.write(HELP);
  if (values.version) return void process.stdout.write(`${AGENT_VERSION}\n`);
  const [command = 'start', ...rest] = positionals;
  const run = await options(values);
  switch (command) {
    case 'start':
      try {
        bandwidth.rate = parseRate(values.bwlimit ?? process.env.CUMULO_AGENT_BWLIMIT ?? 'off');
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      return start(run);
    case 'pair': {
      const code = rest[0];
      if (!code) throw new UsageError('Usage: cumulo-agent pair <code> [--server URL]');
      const device = await redeemCode(run.server, code);
      const config = await loadConfig(run.home);
      await saveConfig(run.home, { ...config, server: run.server, device });
      process.stdout.write(
        `Paired with ${run.server}: this agent now acts for ${device.email} (${device.organization}).\n`,
      );
      process.stdout.write('A running agent picks this up when restarted.\n');
      return;
    }
    case 'unpair': {
      const config = await loadConfig(run.home);
      await saveConfig(run.home, { ...config, device: null });
      process.stdout.write('The device token is forgotten. Revoke the device on your profile page too.\n');
      return;
    }
    case 'add': {
      const folder = rest[0];
      if (!folder) throw new UsageError('Usage: cumulo-agent add <folder>');
      const absolute = await realpath(path.resolve(folder)).catch(() => null);
      if (!absolute || !(await stat(absolute)).isDirectory()) throw new UsageError(`Not a folder: ${folder}`);
      const config = await loadConfig(run.home);
      if (!config.folders.includes(absolute)) config.folders.push(absolute);
      await saveConfig(run.home, config);
      const root = rootsOf(config.folders).find((candidate) => candidate.folder === absolute);
      process.stdout.write(`Added ${absolute} (shown to the page as /${root?.name ?? ''}).\n`);
      return;
    }
    case 'remove': {
      const folder = rest[0];
      if (!folder) throw new UsageError('Usage: cumulo-agent remove <folder>');
      const config = await loadConfig(run.home);
      const absolute = await realpath(path.resolve(folder)).catch(() => path.resolve(folder));
      const kept = config.folders.filter((candidate) => candidate !== absolute && candidate !== folder);
      if (kept.length === config.folders.length) throw new UsageError(`Not an added folder: ${folder}`);
      await saveConfig(run.home, { ...config, folders: kept });
      process.stdout.write(`Removed ${absolute}.\n`);
      return;
    }
    case 'folders': {
      const config = await loadConfig(run.home);
      if (config.folders.length === 0) process.stdout.write('No folders added.\n');
      for (const root of rootsOf(config.folders)) process.stdout.write(`/${root.name}\t${root.folder}\n`);
      return;
    }
    case 'install-link': {
      const script = process.argv[1] ? path.resolve(process.argv[1]) : '';
      const flags = Object.entries({
        port: values.port,
        server: values.server,
        origin: values.origin,
        home: values.home,
      })
        .filter(([, value]) => value !== undefined)
        .flatMap(([name, value]) => [`--${name}`, String(value)]);
      process.stdout.write(
        `${await installLink([process.execPath, ...process.execArgv, script, ...flags])}\n`,
      );
      return;
    }
    default:
      throw new UsageError(`Unknown command: ${command}\n\n${HELP}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
