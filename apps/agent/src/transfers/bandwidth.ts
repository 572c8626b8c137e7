import { setTimeout as sleep } from 'node:timers/promises';
import { Transform } from 'node:stream';

/**
 * `--bwlimit`: one pace for all the agent's transfers together, in bytes a second, like rclone's --bwlimit — for a
 * machine whose uplink others share. Each chunk reserves its slot in time at that rate; a chunk waits until its
 * slot is less than BURST_MS ahead, so the pace holds over any second while short bursts pass unhindered.
 */
const BURST_MS = 250;

export class Bandwidth {
  /** Bytes a second; 0 is no limit. */
  #rate = 0;
  /** When the bytes reserved so far will have passed at the rate (performance.now() time). */
  #until = 0;

  get rate() {
    return this.#rate;
  }

  set rate(bytesPerSecond: number) {
    this.#rate = Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? bytesPerSecond : 0;
    this.#until = 0;
  }

  /** Resolves when `bytes` more may pass. */
  async take(bytes: number): Promise<void> {
    if (this.#rate === 0 || bytes <= 0) return;
    const now = performance.now();
    this.#until = Math.max(this.#until, now) + (bytes / this.#rate) * 1000;
    const wait = this.#until - now - BURST_MS;
    if (wait > 0) await sleep(wait);
  }

  /** A stream stage that lets bytes through at the pace. */
  pacer(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.take(chunk.length).then(() => done(null, chunk), done);
      },
    });
  }
}

/** The agent's one pace (main.ts sets it from --bwlimit or CUMULO_AGENT_BWLIMIT). */
export const bandwidth = new Bandwidth();

/**
 * A rate as typed: bytes a second, or with the suffix K, M or G (1024-based, as rclone reads them: `10M` is 10 MiB/s).
 * 'off' or 0 is no limit. Anything else is refused with its reason.
 */
export function parseRate(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([KMG]?)(?:i?B)?$/i.exec(value.trim());
  if (value.trim().toLowerCase() === 'off') return 0;
  if (!match)
    throw new Error(`Not a rate: ${value} (write bytes a second, or with K, M or G: 10M is 10 MiB/s)`);
  const unit = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[
    (match[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'
  ];
  return Math.round(Number(match[1]) * unit);
}
