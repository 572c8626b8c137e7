// Types of scripts/build-server.mjs, for the TypeScript that imports it (bench/transfer).
export const root: string;
export const serverDist: string;
export const serverEntry: string;
export const serverNodeFlags: string[];
export const webNodeFlags: string[];
export const analyticsReadWorkerEntry: { in: string; out: string };
export function newestMtime(target: string): number;
export function bundleServer(options?: {
  entryPoints?: (string | { in: string; out: string })[];
  outdir?: string;
}): Promise<void>;
export function buildServerIfStale(log?: (message: string) => void): Promise<void>;
