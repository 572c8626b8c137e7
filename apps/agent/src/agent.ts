import { randomBytes, timingSafeEqual } from 'node:crypto';
import os from 'node:os';
import readline from 'node:readline';
import {
  AGENT_PAIR_CODE_TTL_SECONDS,
  agentMeAnswer,
  redeemAgentCodeAnswer,
  redeemAgentTicketAnswer,
  type AgentHeartbeat,
} from '@cumulo/contract';
import {
  AGENT_VERSION,
  agentPlatform,
  loadConfig,
  saveConfig,
  type AgentConfig,
  type PairedDevice,
  type RunOptions,
} from './config.ts';
import { LocalFolders } from './local-folders.ts';
import { CumuloServer, DeviceUnknown, ServerError } from './server-client.ts';
import { TransferManager } from './transfers/transfer-manager.ts';

/** The device is asked about at most this often when the page beats (GET /agent/me). */
const DEVICE_CHECK_MS = 5000;
/** How long a heartbeat waits for that check. */
const DEVICE_CHECK_WAIT_MS = 2000;

export const pairingMessages = {
  busy: 'A pairing is already waiting for confirmation in the transfer agent’s terminal.',
  noTerminal:
    'This transfer agent runs without a terminal to confirm in: pair it from its shell with `cumulo-agent pair <code>`.',
  prompt: (server: string, code: string) =>
    `Pair this agent with ${server} using code ${code}? Type yes to confirm: `,
  refused: 'Pairing refused.',
  timedOut: 'Pairing not confirmed in time.',
} as const;

/** A code as typed (any case, dash optional) as the server shows it: XXXX-XXXX. */
const formatCode = (code: string) => {
  const plain = code.replace(/-/g, '').toUpperCase();
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
};

/** Redeems a pairing code with the server: the device token the agent keeps. */
export async function redeemCode(server: string, code: string): Promise<PairedDevice> {
  const client = new CumuloServer(
    server,
    () => null,
    () => undefined,
  );
  const answer = await client.anonymous(
    'POST',
    '/agent/devices',
    {
      code: formatCode(code),
      name: os.hostname().slice(0, 120) || 'agent',
      platform: agentPlatform(),
      version: AGENT_VERSION,
    },
    redeemAgentCodeAnswer,
  );
  return {
    id: answer.device_id,
    token: answer.token,
    server,
    email: answer.user.email,
    organization: answer.organization_name,
  };
}

/**
 * The running agent: its config, the device token, the page's connection keys (in memory only), the pairing the
 * user confirms in the terminal, and the transfers.
 */
export class Agent {
  readonly folders: LocalFolders;
  readonly server: CumuloServer;
  readonly transfers: TransferManager;
  #config: AgentConfig;
  readonly #keys = new Set<string>();
  #pairing: { code: string; answer: (yes: boolean) => void } | null = null;
  #terminal: readline.Interface | null = null;
  #stdinOpen = false;
  #checkedAt = 0;
  #checking: Promise<void> | null = null;

  private constructor(
    readonly options: RunOptions,
    config: AgentConfig,
  ) {
    this.#config = config;
    this.folders = new LocalFolders(() => this.#config.folders);
    this.server = new CumuloServer(
      options.server,
      () => this.#device()?.token ?? null,
      () => this.forgetDevice(),
    );
    this.transfers = new TransferManager(options.home, this.server, this.folders);
  }

  static async open(options: RunOptions): Promise<Agent> {
    return new Agent(options, await loadConfig(options.home));
  }

  /** The paired device, when it was paired with the server this run talks to. */
  #device(): PairedDevice | null {
    const device = this.#config.device;
    return device && device.server === this.options.server ? device : null;
  }

  get paired(): boolean {
    return this.#device() !== null;
  }

  /** Reads lines from stdin for pairing confirmations (a terminal, or a pipe). */
  listenToTerminal(): void {
    // A daemon's stdin is closed or /dev/null: it ends at once, and page pairing is then refused.
    this.#stdinOpen = true;
    const terminal = readline.createInterface({ input: process.stdin, terminal: false });
    terminal.on('line', (line) => {
      const pairing = this.#pairing;
      if (!pairing) return;
      this.#pairing = null;
      pairing.answer(line.trim().toLowerCase() === 'yes');
    });
    terminal.on('close', () => {
      this.#stdinOpen = false;
      const pairing = this.#pairing;
      this.#pairing = null;
      pairing?.answer(false);
    });
    this.#terminal = terminal;
  }

  async heartbeat(): Promise<AgentHeartbeat> {
    if (this.paired && Date.now() - this.#checkedAt >= DEVICE_CHECK_MS) {
      this.#checking ??= this.#checkDevice().finally(() => {
        this.#checking = null;
      });
      // A slow server does not hold the page's heartbeat: the answer of a check still running comes with the next.
      await Promise.race([
        this.#checking,
        new Promise((resolve) => setTimeout(resolve, DEVICE_CHECK_WAIT_MS)),
      ]);
    }
    return {
      running: true,
      version: AGENT_VERSION,
      platform: agentPlatform(),
      paired: this.paired,
      device_id: this.#device()?.id ?? null,
      pairing: this.#pairing !== null,
    };
  }

  /** GET /agent/me: a 401 (revoked) makes the server client forget the device. */
  async #checkDevice(): Promise<void> {
    this.#checkedAt = Date.now();
    try {
      await this.server.device('GET', '/agent/me', undefined, agentMeAnswer);
    } catch (error) {
      // An unreachable server is no reason to forget the device; a 401 already made the client forget it.
      if (!(error instanceof DeviceUnknown) && !(error instanceof ServerError)) throw error;
    }
  }

  /** The device was revoked (or unpaired): its token and every connection key are dropped, transfers stop. */
  async forgetDevice(): Promise<void> {
    if (!this.#config.device) return;
    this.#config = { ...this.#config, device: null };
    this.#keys.clear();
    this.transfers.revoked();
    await saveConfig(this.options.home, this.#config);
    process.stdout.write(
      'The device token was refused by the server (revoked): this agent is no longer paired.\n',
    );
  }

  /**
   * POST /pair: asks the user in the terminal; a yes redeems the code. Answers at once (the page watches the
   * heartbeat's `pairing` and `paired`).
   */
  startPairing(code: string): { ok: true } | { ok: false; status: 409; message: string } {
    if (this.#pairing) return { ok: false, status: 409, message: pairingMessages.busy };
    if (!this.#stdinOpen || !this.#terminal)
      return { ok: false, status: 409, message: pairingMessages.noTerminal };
    const shown = formatCode(code);
    const timer = setTimeout(() => {
      if (this.#pairing?.code !== shown) return;
      this.#pairing = null;
      process.stdout.write(`\n${pairingMessages.timedOut}\n`);
    }, AGENT_PAIR_CODE_TTL_SECONDS * 1000);
    timer.unref();
    this.#pairing = {
      code: shown,
      answer: (yes) => {
        clearTimeout(timer);
        if (!yes) {
          process.stdout.write(`${pairingMessages.refused}\n`);
          return;
        }
        void this.pair(shown).then(
          (device) =>
            process.stdout.write(
              `Paired: this agent now acts for ${device.email} (${device.organization}).\n`,
            ),
          (error: unknown) =>
            process.stdout.write(
              `Pairing failed: ${error instanceof Error ? error.message : String(error)}\n`,
            ),
        );
      },
    };
    process.stdout.write(`\n${pairingMessages.prompt(this.options.server, shown)}`);
    return { ok: true };
  }

  async pair(code: string): Promise<PairedDevice> {
    const device = await redeemCode(this.options.server, code);
    this.#config = { ...(await loadConfig(this.options.home)), server: this.options.server, device };
    this.#keys.clear();
    this.#checkedAt = Date.now();
    await saveConfig(this.options.home, this.#config);
    return device;
  }

  /** POST /connect: the server confirms the page's ticket is for this device, then the page gets a fresh key. */
  async connect(ticket: string): Promise<string> {
    await this.server.device('POST', '/agent/tickets/redeem', { ticket }, redeemAgentTicketAnswer);
    const key = randomBytes(32).toString('base64url');
    this.#keys.add(key);
    return key;
  }

  /** Whether `key` is one this run handed out (compared in constant time). */
  knowsKey(key: string | undefined): boolean {
    if (!key || !this.paired) return false;
    const given = Buffer.from(key);
    let found = false;
    for (const known of this.#keys) {
      const expected = Buffer.from(known);
      if (expected.length === given.length && timingSafeEqual(expected, given)) found = true;
    }
    return found;
  }

  /** The config as saved by `add`/`remove` in another shell: folders are read again on every listing. */
  async reloadFolders(): Promise<void> {
    const saved = await loadConfig(this.options.home);
    this.#config = { ...this.#config, folders: saved.folders };
  }

  close(): void {
    this.#terminal?.close();
  }
}
