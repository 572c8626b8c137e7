import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  AGENT_KEY_HEADER,
  agentCancelBody,
  agentConnectBody,
  agentDownloadRequest,
  agentFilesQuery,
  agentMessages,
  agentPairBody,
  agentPathBody,
  agentShareBody,
  agentUploadBody,
} from '@cumulo/contract';
import type { Agent } from './agent.ts';
import { LocalRefusal } from './local-folders.ts';
import { DeviceUnknown, ServerError } from './server-client.ts';

/**
 * The agent's HTTP API on 127.0.0.1 for the Cumulo page (contract `agent.ts`, "the agent's own API"). Before any
 * body is read or any file touched: the Host must name this loopback port (a DNS-rebinding page cannot), an Origin,
 * when sent, must be the configured Cumulo origin, and every call but /heartbeat, /pair and /connect must carry a
 * connection key of POST /connect.
 */

const BODY_LIMIT = 1024 * 1024;
const messages = {
  tooLarge: 'The request body is too large.',
  invalidJson: 'The request body is not valid JSON.',
  notFound: 'No such call.',
  methodNotAllowed: 'This call takes another method.',
  unexpected: 'Something went wrong in the transfer agent. Please try again.',
} as const;

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Hosts a request may name: this port on a loopback name, nothing else. */
function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT) throw new Refusal(413, messages.tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new Refusal(413, messages.tooLarge);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Refusal(400, messages.invalidJson);
  }
}

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const text = result.error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  throw new Refusal(400, text);
}

/** A path holding NUL is refused as a path outside the folders (403), before the schema's own text rule. */
function refuseNul(...values: unknown[]) {
  for (const value of values.flat()) {
    if (typeof value === 'string' && value.includes('\u0000'))
      throw new Refusal(403, agentMessages.pathOutside);
  }
}

const field = (body: unknown, name: string): unknown =>
  body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;

const shareForwardAnswer = z.object({ message: z.string() }).passthrough();

export function createLocalApi(agent: Agent) {
  const { port, origin } = agent.options;
  const hosts = allowedHosts(port);
  const corsHeaders = {
    'access-control-allow-origin': origin,
    vary: 'Origin',
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!hosts.has(host)) return send(response, 403, { message: agentMessages.hostRefused });
    const requestOrigin = request.headers.origin;
    if (requestOrigin !== undefined && requestOrigin !== origin)
      return send(response, 403, { message: agentMessages.originRefused });
    const cors = requestOrigin === origin ? corsHeaders : {};
    const url = new URL(request.url ?? '/', `http://${host}`);
    const method = request.method ?? 'GET';

    if (method === 'OPTIONS') {
      if (requestOrigin !== origin) return send(response, 403, { message: agentMessages.originRefused });
      response.writeHead(204, {
        ...cors,
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': `content-type, ${AGENT_KEY_HEADER}`,
        // Chrome asks a public page before it lets it reach a private address (Private Network Access).
        'access-control-allow-private-network': 'true',
        'access-control-max-age': '600',
      });
      return response.end();
    }

    const route = `${method} ${url.pathname}`;
    const reply = (status: number, body: unknown) => send(response, status, body, cors);
    try {
      switch (route) {
        case 'GET /heartbeat':
          return reply(200, await agent.heartbeat());
        case 'POST /pair': {
          const body = parse(agentPairBody, await readBody(request));
          const started = agent.startPairing(body.code);
          if (!started.ok) return reply(started.status, { message: started.message });
          return reply(202, { message: agentMessages.pairConfirmInTerminal(body.code) });
        }
        case 'POST /connect': {
          const body = parse(agentConnectBody, await readBody(request));
          if (!agent.paired) return reply(409, { message: agentMessages.notPaired });
          try {
            return reply(200, { data: { connectionKey: await agent.connect(body.ticket) } });
          } catch (error) {
            if (
              error instanceof ServerError &&
              error.status >= 400 &&
              error.status < 500 &&
              error.status !== 401
            )
              return reply(403, { message: agentMessages.ticketInvalid });
            throw error;
          }
        }
      }
      const known = [
        'GET /files',
        'POST /upload',
        'POST /download',
        'POST /cancel',
        'POST /retry',
        'GET /status',
        'POST /delete',
        'POST /mkdir',
        'POST /share',
      ];
      if (!known.includes(route)) {
        const pathKnown =
          known.some((entry) => entry.endsWith(` ${url.pathname}`)) ||
          ['/heartbeat', '/pair', '/connect'].includes(url.pathname);
        return reply(pathKnown ? 405 : 404, {
          message: pathKnown ? messages.methodNotAllowed : messages.notFound,
        });
      }
      const key = request.headers[AGENT_KEY_HEADER];
      if (!agent.knowsKey(typeof key === 'string' ? key : undefined))
        return reply(401, { message: agentMessages.keyMissing });
      await agent.reloadFolders();

      switch (route) {
        case 'GET /files': {
          const query = Object.fromEntries(url.searchParams);
          refuseNul(query.path);
          const { path, skip, limit, search } = parse(agentFilesQuery, query);
          return reply(200, await agent.folders.list(path, skip, limit, search));
        }
        case 'POST /upload': {
          const input = await readBody(request);
          refuseNul(field(input, 'paths'));
          const body = parse(agentUploadBody, input);
          return reply(200, {
            transferID: await agent.transfers.startUpload(body.paths, body.remoteDirectory),
          });
        }
        case 'POST /download': {
          const input = await readBody(request);
          refuseNul(field(input, 'localPath'));
          const body = parse(agentDownloadRequest, input);
          return reply(200, { transferID: await agent.transfers.startDownload(body) });
        }
        case 'POST /cancel': {
          const body = parse(agentCancelBody, await readBody(request));
          if (!(await agent.transfers.cancel(body.transferID)))
            return reply(404, { message: agentMessages.transferUnknown });
          return reply(200, { message: agentMessages.cancelled });
        }
        case 'POST /retry': {
          const body = parse(agentCancelBody, await readBody(request));
          const transferID = await agent.transfers.retry(body.transferID);
          if (!transferID) return reply(404, { message: agentMessages.nothingToRetry });
          return reply(200, { transferID, message: agentMessages.retryStarted });
        }
        case 'GET /status':
          return reply(200, { data: { allTransfers: agent.transfers.status() } });
        case 'POST /delete': {
          const input = await readBody(request);
          refuseNul(field(input, 'path'));
          await agent.folders.remove(parse(agentPathBody, input).path);
          return reply(200, { message: 'Deleted.' });
        }
        case 'POST /mkdir': {
          const input = await readBody(request);
          refuseNul(field(input, 'path'));
          await agent.folders.makeFolder(parse(agentPathBody, input).path);
          return reply(201, { message: 'Folder created.' });
        }
        case 'POST /share': {
          const body = parse(agentShareBody, await readBody(request));
          const answer = await agent.server.device(
            'POST',
            '/transfers/share_files_by_email',
            {
              files: body.paths.map((name) => ({
                name,
                acl: 'private',
                bucket_name: body.bucket_name,
                cloud_account_id: body.cloud_account_id,
              })),
              recipients: body.recipients,
            },
            shareForwardAnswer,
          );
          return reply(200, { message: answer.message });
        }
      }
      return reply(404, { message: messages.notFound });
    } catch (error) {
      if (error instanceof Refusal || error instanceof LocalRefusal)
        return reply(error.status, { message: error.message });
      if (error instanceof DeviceUnknown) return reply(401, { message: agentMessages.deviceUnknown });
      if (error instanceof ServerError) {
        // The server's own refusal (a 4xx with its words) is passed on; it being unreachable is a 502.
        const status = error.status >= 400 && error.status < 500 ? error.status : 502;
        return reply(status, { message: error.message });
      }
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (code === 'ENOENT') return reply(404, { message: 'No such file or folder.' });
      if (code === 'EACCES' || code === 'EPERM')
        return reply(403, { message: 'The transfer agent may not read or change this file.' });
      process.stderr.write(
        `Unexpected error on ${route}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return reply(500, { message: messages.unexpected });
    }
  };

  return http.createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) send(response, 500, { message: messages.unexpected });
      else response.destroy();
    });
  });
}
