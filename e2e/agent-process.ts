import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The single-file build the download serves (`npm run build` makes it; test:e2e builds first). */
const bundle = path.join(root, 'apps/agent/dist/cumulo-agent.mjs');

/**
 * The real transfer agent as a user runs it: its own home (config, device token, transfer state), its folders added
 * with `cumulo-agent add`, serving 127.0.0.1:<port> for the e2e server's origin. Its terminal is a pipe the test
 * types into (the pairing confirmation) and reads from.
 */
export class AgentProcess {
  readonly home = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-agent-home-'));
  #child: ChildProcessWithoutNullStreams | null = null;
  #output = '';

  constructor(
    readonly port: number,
    readonly server: string,
    /** More flags of `cumulo-agent start`. */
    readonly startFlags: string[] = [],
    /**
     * A user id (and group id) the agent runs as, through util-linux's setpriv: the tests run as root, whom no
     * permission bit refuses, and a user's agent meets the permissions of an ordinary user. Its home is theirs.
     */
    readonly runAs?: number,
  ) {
    if (runAs !== undefined) fs.chownSync(this.home, runAs, runAs);
  }

  /** The command line of `cumulo-agent <args>`: [program, ...arguments]. */
  #command(...args: string[]): [string, string[]] {
    const agent = [bundle, ...args, '--home', this.home, '--server', this.server];
    if (this.runAs === undefined) return [process.execPath, agent];
    const id = String(this.runAs);
    return ['setpriv', [`--reuid=${id}`, `--regid=${id}`, '--clear-groups', process.execPath, ...agent]];
  }

  /** `cumulo-agent add <folder>`. */
  add(folder: string) {
    const result = spawnSync(...this.#command('add', folder), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`cumulo-agent add failed: ${result.stderr}${result.stdout}`);
  }

  /** `cumulo-agent start`, resolved once its heartbeat answers. */
  async start() {
    this.#output = '';
    const child = spawn(
      ...this.#command('start', '--port', String(this.port), '--origin', this.server, ...this.startFlags),
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdout.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
    this.#child = child;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`the agent exited with ${child.exitCode}: ${this.#output}`);
      const up = await fetch(`http://127.0.0.1:${this.port}/heartbeat`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) return;
      if (Date.now() > deadline) throw new Error(`the agent did not start: ${this.#output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Everything the agent printed since it started. */
  get output() {
    return this.#output;
  }

  /** Types a line into the agent's terminal. */
  type(line: string) {
    this.#child?.stdin.write(`${line}\n`);
  }

  /** kill -9: no chance to save anything beyond what it already wrote. */
  async kill() {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.#child = null;
  }

  async stop() {
    await this.kill();
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}
