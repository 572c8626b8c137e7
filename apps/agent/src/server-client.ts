import type { z } from 'zod';
import { AGENT_AUTH_SCHEME, agentMessages } from '@cumulo/contract';
import { httpRequest, type HttpAnswer } from './http-client.ts';

/** A refusal or failure of the Cumulo server, with its status (0: the server could not be reached). */
export class ServerError extends Error {
  override readonly name = 'ServerError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The server no longer knows the device token (revoked, or never paired). */
export class DeviceUnknown extends ServerError {
  constructor() {
    super(401, agentMessages.deviceUnknown);
  }
}

type Method = 'GET' | 'POST' | 'DELETE';
/** The longest answer of the server read (a download page of 1000 signed URLs is well under 2 MB). */
const ANSWER_MAX = 16 * 1024 * 1024;
/** Attempts of a device call when the server cannot be reached or answers 502–504 (2, 4, 8 s apart). */
const SERVER_ATTEMPTS = 4;

/**
 * Calls of the Cumulo server's API. Device calls carry `Authorization: Agent <token>`; a 401 on one of them means
 * the device was revoked, which `onRevoked` acts on (forget the token and every connection key) before the caller
 * sees DeviceUnknown.
 */
export class CumuloServer {
  constructor(
    readonly base: string,
    private readonly token: () => string | null,
    private readonly onRevoked: () => Promise<void> | void,
  ) {}

  /** A call without the device token (redeeming a pairing code). */
  async anonymous<T>(method: Method, path: string, body: unknown, answer: z.ZodType<T>): Promise<T> {
    return answer.parse(await this.#send(method, path, body, null));
  }

  async device<T>(method: Method, path: string, body: unknown, answer: z.ZodType<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const token = this.token();
      if (!token) throw new DeviceUnknown();
      try {
        return answer.parse(await this.#send(method, path, body, token));
      } catch (error) {
        if (error instanceof ServerError && error.status === 401) {
          await this.onRevoked();
          throw new DeviceUnknown();
        }
        // A server restarting or briefly unreachable is waited for; its refusals (4xx) are final.
        const passing = error instanceof ServerError && (error.status === 0 || error.status >= 502);
        if (!passing || attempt >= SERVER_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
      }
    }
  }

  async #send(method: Method, path: string, body: unknown, token: string | null): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `${AGENT_AUTH_SCHEME} ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: HttpAnswer;
    try {
      response = await httpRequest({
        method,
        url: `${this.base}/api${path}`,
        headers,
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
        signal: AbortSignal.timeout(60_000),
        maxText: ANSWER_MAX,
      });
    } catch {
      throw new ServerError(0, agentMessages.serverError);
    }
    const text = response.text;
    let payload: unknown = null;
    try {
      payload = text ? JSON.parse(text) : null;
    } catch {
      payload = null;
    }
    if (response.status < 200 || response.status >= 300) {
      const message =
        payload && typeof payload === 'object' && 'message' in payload && typeof payload.message === 'string'
          ? payload.message
          : `${agentMessages.serverError} (HTTP ${response.status})`;
      throw new ServerError(response.status, message);
    }
    return payload;
  }
}
