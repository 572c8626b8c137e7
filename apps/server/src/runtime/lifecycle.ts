/**
 * Whether the process is shutting down (SIGTERM received, main.ts). Readiness answers 503 from then on, so that
 * a load balancer sends nothing new while the answers in flight finish.
 */
export class Lifecycle {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  beginDrain() {
    this.#draining = true;
  }
}
