/** How far back the speed looks: long enough to smooth out parts finishing in bursts. */
const SPEED_WINDOW_MS = 5000;

interface Sample {
  at: number;
  bytes: number;
}

/** Speed over a moving window of (time, bytes sent) samples, and the time left at that speed. */
export class TransferRate {
  private samples: Sample[] = [];

  record(at: number, bytes: number): void {
    this.samples.push({ at, bytes });
    while (this.samples.length > 2 && at - (this.samples[1]?.at ?? at) >= SPEED_WINDOW_MS)
      this.samples.shift();
  }

  /** Bytes per second over the window; 0 until two samples span some time. */
  bytesPerSecond(): number {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at <= first.at) return 0;
    return ((last.bytes - first.bytes) * 1000) / (last.at - first.at);
  }

  /** Seconds left for `remaining` bytes at the current speed; null while the speed is unknown. */
  secondsLeft(remaining: number): number | null {
    const speed = this.bytesPerSecond();
    return speed > 0 ? Math.ceil(remaining / speed) : null;
  }
}
