import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  AGENT_AUTH_SCHEME,
  agentMessages,
  uploadPartSize,
  type AgentHistoryReport,
  type UploadedPart,
} from '@cumulo/contract';
import type { DirectUploadRef, ObjectStore } from '@cumulo/storage';

/**
 * A stand-in for the Cumulo server in the agent's tests: only the calls the agent makes (/api/agent/* and the
 * direct-upload calls under /api/transfers), answering the contract's shapes, with URLs signed for a REAL object
 * store by packages/storage (s3rver in the tests). The real server's own routes have their own tests; this one lets
 * the agent's process be tested whole while the server side is built separately. Nothing here checks quotas, roles
 * or tenancy.
 */

interface Session {
  id: string;
  key: string;
  size: number;
  partSize: number;
  fingerprint: string;
  uploadId: string;
  /** One PUT (a batch's small file): nothing to complete with the provider. */
  single: boolean;
  status: 'active' | 'complete' | 'aborted';
}

type Hold = () => Promise<void>;

export interface StandInServer {
  url: string;
  code: string;
  deviceId: string;
  /** The device token the agent got (to check it never leaks). */
  token: string;
  /** A new device and token for the next redemption of the code (the old device stays revoked). */
  pairAgain(): void;
  /** Answer 401 to every device call from now on (the device revoked on /profile). */
  revoke(): void;
  /** A one-time ticket the page would get for this device. */
  ticket(): string;
  history: AgentHistoryReport[];
  shares: unknown[];
  /** Session starts of a file that found its earlier session, with the parts the store still held. */
  resumedStarts: Array<{ key: string; finishedParts: number }>;
  /** Every call made with the device token, in order (`POST /api/agent/downloads`…). */
  calls: string[];
  /** Makes the download listing give `key` the ETag of other bytes (a copy the agent must refuse). */
  tamper(key: string): void;
  /** Holds the next call of `route` ('POST /api/transfers/uploads/batch'…) until the returned release is called. */
  holdNext(route: string): { reached: Promise<void>; release: () => void };
  /**
   * Answers every call of `route` that comes from now on with `status` and `message` (the server lost its store),
   * until `stop`. A call already held by `holdNext` is answered as usual.
   */
  failCalls(route: string, status: number, message: string): { stop: () => void };
  stop(): Promise<void>;
}

const read = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : {};
};

const send = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

export async function startStandInServer(
  store: ObjectStore,
  bucket: string,
  options: { downloadPageSize?: number } = {},
): Promise<StandInServer> {
  const direct = store.capabilities.directUpload;
  if (!direct?.signForm) throw new Error('the stand-in needs an S3 store with signed forms');
  const code = 'ABCD-EFGH';
  let deviceId = randomUUID();
  let token = randomBytes(32).toString('base64url');
  let paired = false;
  let revoked = false;
  const tickets = new Set<string>();
  const sessions = new Map<string, Session>();
  const history: AgentHistoryReport[] = [];
  const shares: unknown[] = [];
  const resumedStarts: StandInServer['resumedStarts'] = [];
  const holds = new Map<string, { hold: Hold; reached: () => void }>();
  const failing = new Map<string, { status: number; message: string }>();
  const tampered = new Set<string>();
  const calls: string[] = [];
  // Small pages by default, so the agent's paging is exercised.
  const PAGE = options.downloadPageSize ?? 3;

  const ref = (session: Session): DirectUploadRef => ({
    bucket,
    key: session.key,
    uploadId: session.uploadId,
    size: session.size,
    partSize: session.partSize,
  });

  const route = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const name = `${request.method ?? 'GET'} ${url.pathname}`;
    const failure = failing.get(name);
    if (failure) return send(response, failure.status, { message: failure.message });
    const held = holds.get(name);
    if (held) {
      holds.delete(name);
      held.reached();
      await held.hold();
    }
    if (name === 'POST /api/agent/devices') {
      const body = (await read(request)) as { code?: string };
      if (paired || body.code?.replace('-', '').toUpperCase() !== code.replace('-', ''))
        return send(response, 400, { message: agentMessages.pairCodeInvalid });
      paired = true;
      return send(response, 201, {
        device_id: deviceId,
        token,
        user: { id: randomUUID(), email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
        organization_name: 'Analytical Engines',
      });
    }
    if (request.headers.authorization !== `${AGENT_AUTH_SCHEME} ${token}` || revoked)
      return send(response, 401, { message: 'Unauthorized' });
    calls.push(name);

    if (name === 'GET /api/agent/me')
      return send(response, 200, {
        device_id: deviceId,
        name: 'test machine',
        user_id: randomUUID(),
        email: 'ada@example.com',
        organization_name: 'Analytical Engines',
      });
    if (name === 'POST /api/agent/tickets/redeem') {
      const body = (await read(request)) as { ticket?: string };
      if (!body.ticket || !tickets.delete(body.ticket))
        return send(response, 400, { message: agentMessages.ticketInvalid });
      return send(response, 200, { user_id: randomUUID(), email: 'ada@example.com' });
    }
    if (name === 'POST /api/transfers/uploads/batch') {
      const body = (await read(request)) as {
        files: Array<{ key: string; size: number; fingerprint: string }>;
      };
      const form = await direct.signForm?.(bucket, { files: body.files, expiresInSeconds: 3600 });
      if (!form) throw new Error('no form');
      return send(response, 200, {
        files: body.files.map((file, i) => {
          const session: Session = {
            id: randomUUID(),
            key: file.key,
            size: file.size,
            partSize: uploadPartSize(file.size),
            fingerprint: file.fingerprint,
            uploadId: '',
            single: true,
            status: 'active',
          };
          sessions.set(session.id, session);
          return {
            session_id: session.id,
            key: file.key,
            url: form.url,
            method: 'POST',
            headers: {},
            fields: form.perFile[i],
          };
        }),
        form_fields: form.fields,
      });
    }
    if (name === 'POST /api/transfers/uploads/batch/complete') {
      const body = (await read(request)) as { session_ids: string[] };
      const files = [];
      // As the real server does: one listing of the batch's folder rather than a HEAD per file.
      const batch = body.session_ids.map((id) => sessions.get(id));
      const keys = batch.map((session) => session?.key ?? '');
      let prefix = keys[0] ?? '';
      for (const key of keys) while (!key.startsWith(prefix)) prefix = prefix.slice(0, -1);
      const sizes = new Map<string, number>();
      for await (const page of store.list(bucket, { prefix }))
        for (const object of page.objects) sizes.set(object.key, object.size);
      for (const [i, id] of body.session_ids.entries()) {
        const session = batch[i];
        if (!session) return send(response, 404, { message: 'Not found' });
        const size = sizes.get(session.key) ?? (await store.stat(bucket, session.key))?.size;
        const error = size === session.size ? null : 'The file did not reach the bucket. Please try again.';
        if (!error) session.status = 'complete';
        files.push({ session_id: id, key: session.key, error });
      }
      return send(response, 200, { files });
    }
    if (name === 'POST /api/transfers/uploads') {
      const body = (await read(request)) as { key: string; size: number; fingerprint: string };
      const partSize = uploadPartSize(body.size);
      const partsTotal = Math.max(1, Math.ceil(body.size / partSize));
      const previous = [...sessions.values()].find(
        (session) =>
          session.status === 'active' &&
          !session.single &&
          session.key === body.key &&
          session.fingerprint === body.fingerprint &&
          session.size === body.size,
      );
      if (previous) {
        const held = await direct.listParts(ref(previous));
        const finished: UploadedPart[] = held.map((part) => ({
          part_number: part.partNumber,
          size: part.size,
          etag: part.etag,
        }));
        resumedStarts.push({ key: body.key, finishedParts: finished.length });
        return send(response, 200, {
          session_id: previous.id,
          mode: 's3-multipart',
          part_size: partSize,
          parts_total: partsTotal,
          finished_parts: finished,
          resumed: true,
        });
      }
      const uploadId = await direct.start(bucket, body.key, { size: body.size, partSize });
      const session: Session = {
        id: randomUUID(),
        key: body.key,
        size: body.size,
        partSize,
        fingerprint: body.fingerprint,
        uploadId,
        single: false,
        status: 'active',
      };
      sessions.set(session.id, session);
      return send(response, 200, {
        session_id: session.id,
        mode: 's3-multipart',
        part_size: partSize,
        parts_total: partsTotal,
        finished_parts: [],
        resumed: false,
      });
    }
    if (name === 'GET /api/transfers/url_signer_v4') {
      const session = sessions.get(url.searchParams.get('session_id') ?? '');
      if (!session || session.status !== 'active') return send(response, 400, { message: 'inactive' });
      const numbers = (url.searchParams.get('part_numbers') ?? '').split(',').map(Number);
      const targets = await direct.signParts(ref(session), numbers, { expiresInSeconds: 3600 });
      return send(response, 200, {
        parts: targets.map((target) => ({
          part_number: target.partNumber,
          url: target.url,
          method: 'PUT',
          headers: target.headers,
        })),
      });
    }
    const sessionCall = /^(POST|DELETE) \/api\/transfers\/uploads\/([\w-]+)(\/complete)?$/.exec(name);
    if (sessionCall) {
      const session = sessions.get(sessionCall[2] ?? '');
      if (!session) return send(response, 404, { message: 'Not found' });
      if (sessionCall[1] === 'DELETE') {
        if (!session.single && session.status === 'active') await direct.abort(ref(session));
        session.status = 'aborted';
        return send(response, 200, { message: 'Upload cancelled' });
      }
      const body = (await read(request)) as { parts: Array<{ part_number: number; etag: string | null }> };
      const { etag } = await direct.complete(
        ref(session),
        body.parts.map((part) => ({ partNumber: part.part_number, etag: part.etag })),
        {},
      );
      session.status = 'complete';
      const object = await store.stat(bucket, session.key);
      return send(response, 200, {
        key: session.key,
        size: object?.size ?? 0,
        etag: etag ?? object?.etag ?? null,
      });
    }
    if (name === 'POST /api/agent/downloads') {
      const body = (await read(request)) as { paths: string[]; continuation?: string | null };
      const all: Array<{ key: string; relative_path: string; size: number; etag: string | null }> = [];
      for (const chosen of body.paths) {
        const parent = chosen.replace(/\/$/, '').split('/').slice(0, -1).join('/');
        const cut = parent ? parent.length + 1 : 0;
        if (chosen.endsWith('/')) {
          for await (const page of store.list(bucket, { prefix: chosen }))
            for (const object of page.objects)
              if (!object.key.split('/').some((segment) => segment.startsWith('.')))
                all.push({
                  key: object.key,
                  relative_path: object.key.slice(cut),
                  size: object.size,
                  etag: object.etag,
                });
        } else {
          const object = await store.stat(bucket, chosen);
          if (object)
            all.push({ key: chosen, relative_path: chosen.slice(cut), size: object.size, etag: object.etag });
        }
      }
      const offset = Number(body.continuation ?? 0);
      const page = all.slice(offset, offset + PAGE);
      return send(response, 200, {
        files: await Promise.all(
          page.map(async (file) => ({
            ...file,
            etag: tampered.has(file.key) ? createHash('md5').update('other bytes').digest('hex') : file.etag,
            url: await store.signedUrl(bucket, file.key, { method: 'GET', expiresInSeconds: 600 }),
          })),
        ),
        continuation: offset + PAGE < all.length ? String(offset + PAGE) : null,
      });
    }
    if (name === 'POST /api/agent/downloads/urls') {
      const body = (await read(request)) as { keys: string[] };
      if (!Array.isArray(body.keys) || body.keys.length === 0 || body.keys.length > 500)
        return send(response, 400, { message: 'keys: 1 to 500' });
      return send(response, 200, {
        urls: await Promise.all(
          body.keys.map(async (key) => ({
            key,
            url: await store.signedUrl(bucket, key, { method: 'GET', expiresInSeconds: 600 }),
          })),
        ),
      });
    }
    if (name === 'POST /api/agent/history') {
      history.push((await read(request)) as AgentHistoryReport);
      return send(response, 201, { message: 'recorded' });
    }
    if (name === 'POST /api/transfers/share_files_by_email') {
      shares.push(await read(request));
      return send(response, 200, { message: 'Files shared' });
    }
    return send(response, 404, { message: 'Not found' });
  };

  const server = http.createServer((request, response) => {
    route(request, response).catch((error: unknown) => send(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    code,
    get deviceId() {
      return deviceId;
    },
    get token() {
      return token;
    },
    pairAgain: () => {
      deviceId = randomUUID();
      token = randomBytes(32).toString('base64url');
      paired = false;
      revoked = false;
    },
    revoke: () => {
      revoked = true;
    },
    ticket: () => {
      const ticket = randomBytes(16).toString('base64url');
      tickets.add(ticket);
      return ticket;
    },
    history,
    shares,
    calls,
    resumedStarts,
    tamper: (key) => {
      tampered.add(key);
    },
    holdNext: (routeName) => {
      let release = () => {};
      let reached = () => {};
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(routeName, { hold: () => released, reached });
      return { reached: reachedPromise, release };
    },
    failCalls: (routeName, status, message) => {
      failing.set(routeName, { status, message });
      return { stop: () => failing.delete(routeName) };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
