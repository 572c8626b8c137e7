import { setTimeout as sleep } from 'node:timers/promises';
import { StorageError } from '@cumulo/storage';

export interface BackoffOptions {
  /** The first pause after a throttling answer; each further one doubles it. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts of one call (the first included) before its throttling answer is given up to the caller. */
  maxAttempts: number;
  /** Source of jitter in [0, 1); replaceable so a test can make it fixed. */
  random?: () => number;
}

const DEFAULT_BACKOFF: BackoffOptions = { baseDelayMs: 250, maxDelayMs: 30_000, maxAttempts: 8 };

/** 503 SlowDown, 429, Azure ServerBusy: the adapters map all of them to this one code. */
function isThrottled(error: unknown): boolean {
  return error instanceof StorageError && error.code === 'Throttled';
}

/**
 * The backoff state of one destination (endpoint + bucket). The SDKs already retry a throttled request, but each
 * request on its own: when a store says "slow down", every copy to it must slow down, or 64 copies keep
 * hammering it in lockstep. A throttling answer closes the gate for an exponentially growing, jittered pause;
 * new part and object starts wait at the gate; each success lowers the level again.
 */
export class ThrottleGate {
  private level = 0;
  private openAt = 0;

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  /** How many throttling answers are not yet offset by successes (0 = the gate is wide open). */
  get backoffLevel(): number {
    return this.level;
  }

  /** Resolves once the gate is open; rejects with the signal's reason when aborted while waiting. */
  async wait(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    for (let pause = this.openAt - Date.now(); pause > 0; pause = this.openAt - Date.now()) {
      await sleep(pause, undefined, { signal });
    }
  }

  /** Records a throttling answer: closes the gate for base × 2^(level-1), half of it jittered, capped. */
  throttled(): void {
    this.level = Math.min(this.level + 1, 30);
    const ceiling = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (this.level - 1));
    const pause = ceiling / 2 + (this.options.random ?? Math.random)() * (ceiling / 2);
    this.openAt = Math.max(this.openAt, Date.now() + pause);
  }

  succeeded(): void {
    if (this.level > 0) this.level -= 1;
  }

  /** Runs one store call behind the gate, again after a pause while the store answers Throttled. */
  async call<T>(run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.wait(signal);
      try {
        const result = await run();
        this.succeeded();
        return result;
      } catch (error) {
        if (!isThrottled(error) || attempt >= this.options.maxAttempts || signal?.aborted) throw error;
        this.throttled();
      }
    }
  }
}

/**
 * The gates of every destination of a process, so all copies to one destination share its backoff: one per
 * worker process, built in services.ts with the copier.
 */
export class ThrottleGates {
  private readonly gates = new Map<string, ThrottleGate>();

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  gateFor(endpointKey: string, bucket: string): ThrottleGate {
    const name = `${endpointKey}\u0000${bucket}`;
    let gate = this.gates.get(name);
    if (!gate) {
      gate = new ThrottleGate(this.options);
      this.gates.set(name, gate);
    }
    return gate;
  }
}
