import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import S3rver from 's3rver';
import { addPutBlockFromUrl } from './azurite-block-from-url.ts';
import { addMultipartCalls } from './s3rver-multipart.ts';
import { multipartUploadsView, type MultipartUploadsView } from './s3rver-uploads.ts';

/**
 * Real object-store servers for tests (TESTING.md "Object stores"), started in this process on free ports.
 * Shared by the adapter suites, the server's integration tests and the end-to-end tests.
 */
export interface TestStoreServer {
  endpoint: string;
  stop(): Promise<void>;
}

/** s3rver accepts only its own access key id (it verifies V2 signatures only, and no V4 signature). */
export const S3RVER_KEY = 'S3RVER';

/** s3rver, with a direct look at the multipart uploads it holds. */
export type S3rverServer = TestStoreServer & MultipartUploadsView;

/**
 * Starts s3rver on a free port with a fresh directory, with the multipart calls it lacks added
 * (s3rver-multipart.ts). Run the process with --openssl-legacy-provider.
 */
export async function startS3rver(): Promise<S3rverServer> {
  const directory = await mkdtemp(join(tmpdir(), 'cumulo-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  addMultipartCalls(server);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    ...multipartUploadsView(endpoint, S3RVER_KEY),
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** What a hold hook sees of a request that reached s3rver. */
export interface S3rverRequest {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
}

/** An s3rver that a test stops and starts again mid-run: an outage of the store, then its recovery. */
export interface RestartableS3rver extends S3rverServer {
  /** Stops at once, as a crashed server does: requests in flight lose their connection, new ones are refused. */
  halt(): Promise<void>;
  /** Serves again on the same port from the same directory (what was stored before the halt is still there). */
  resume(): Promise<void>;
}

/**
 * s3rver on a port and directory kept across halt/resume (with the multipart calls of startS3rver). `hold`, when
 * it answers a promise for a request, keeps that request unanswered until the promise settles: a test stops the
 * server at an exact point (say, while a part upload is in flight) rather than at some moment it polls for.
 */
export async function startRestartableS3rver(
  options: { hold?: (request: S3rverRequest) => Promise<void> | undefined } = {},
): Promise<RestartableS3rver> {
  const directory = await mkdtemp(join(tmpdir(), 'cumulo-s3rver-'));
  let port = 0;
  let running: S3rver | null = null;
  const start = async () => {
    const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true });
    addMultipartCalls(server);
    const { hold } = options;
    if (hold) {
      // Koa composes its middleware when the server starts listening; the hold runs before anything else.
      const { middleware } = server as unknown as { middleware: unknown[] };
      middleware.unshift(async (ctx: S3rverRequest, next: () => Promise<unknown>) => {
        await hold({ method: ctx.method, path: ctx.path, query: ctx.query });
        return next();
      });
    }
    port = (await server.run()).port;
    running = server;
  };
  const halt = async () => {
    const server = running;
    running = null;
    if (!server) return;
    const { httpServer } = server as unknown as { httpServer: Server };
    const closed = server.close();
    httpServer.closeAllConnections();
    await closed;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    ...multipartUploadsView(endpoint, S3RVER_KEY),
    halt,
    resume: start,
    stop: async () => {
      await halt();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Azurite's well-known development account (public, documented by Microsoft). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

interface AzuriteBlobServer {
  start(): Promise<void>;
  close(): Promise<void>;
  clean(): Promise<void>;
  getHttpServerAddress(): string;
}

type BlobConfigurationClass = new (...args: unknown[]) => object;
type BlobServerClass = new (configuration: object) => AzuriteBlobServer;

// Azurite ships CommonJS without type declarations and has no public in-process API, so its own classes are
// loaded by path; `require` keeps their `default` export as Azurite wrote it.
const require = createRequire(import.meta.url);
const { default: BlobConfiguration } = require('azurite/dist/src/blob/BlobConfiguration.js') as {
  default: BlobConfigurationClass;
};
const { default: BlobServer } = require('azurite/dist/src/blob/BlobServer.js') as {
  default: BlobServerClass;
};

/** Starts Azurite's blob service on a free port, in memory; `endpoint` is the account URL. */
export async function startAzurite(): Promise<TestStoreServer> {
  // Put Block From URL (501 in Azurite 3.35), which Cumulo's in-account part copy uses (azurite-block-from-url.ts).
  addPutBlockFromUrl();
  const configuration = new BlobConfiguration(
    '127.0.0.1',
    0, // the OS picks a free port
    undefined, // keep-alive timeout
    `azurite-blob-${randomUUID()}.json`, // Loki database name (kept in memory)
    `azurite-extent-${randomUUID()}.json`,
    undefined, // persistence paths (unused in memory)
    false, // access log: every request on stdout otherwise
    undefined,
    false, // debug log
    undefined,
    true, // loose: ignore headers Azurite does not know
    true, // skipApiVersionCheck: the SDK speaks a newer API version than Azurite 3.35 lists
    undefined,
    undefined,
    undefined,
    undefined, // OAuth off: shared key and SAS are still enforced
    false, // product-style URLs stay on; 127.0.0.1 uses path-style /devstoreaccount1 anyway
    true, // in-memory persistence
  );
  const server = new BlobServer(configuration);
  await server.start();
  return {
    endpoint: `${server.getHttpServerAddress()}/${AZURITE_ACCOUNT}`,
    stop: async () => {
      await server.close();
      await server.clean();
    },
  };
}

/**
 * Moves a blob to another access tier, as its owner does in the portal (Cumulo has no call for it). Azurite, like
 * Azure, then refuses to read or copy an archived blob; back to Hot or Cool, it reads again at once (Azure takes
 * hours to rehydrate).
 */
export async function setAzuriteTier(
  endpoint: string,
  container: string,
  blob: string,
  tier: 'Hot' | 'Cool' | 'Archive',
): Promise<void> {
  const service = new BlobServiceClient(
    endpoint,
    new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
  );
  await service.getContainerClient(container).getBlobClient(blob).setAccessTier(tier);
}

/** For processes that start their own s3rver (benchmarks): the multipart calls s3rver lacks. */
export { addMultipartCalls } from './s3rver-multipart.ts';
