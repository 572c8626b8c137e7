// The part of autocannon 9's API that bench/load uses (the package ships no types, and @types/autocannon is not a
// dependency of the workspace).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }

  export interface Result {
    latency: Histogram;
    requests: Histogram & { total: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Client {
    setRequests(requests: Array<{ method: string; path: string; headers?: Record<string, string> }>): void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    setupClient?: (client: Client) => void;
  }

  export default function autocannon(options: Options): Promise<Result>;
}
