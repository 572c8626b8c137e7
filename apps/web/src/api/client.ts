import { errorText, messages, type ApiErrorBody } from '@cumulo/contract';
import { badRequestChannel, unauthorizedChannel } from './api-events.ts';
import { getStoredToken } from './auth-token.ts';

export const API_BASE = '/api';

/** Calls of the sign-in flow answer 401 for wrong credentials; they never mean "session expired". */
const AUTH_CALL_PREFIX = '/authentication/';

type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, QueryValue>;
  /** The screen shows this call's 400 errors itself (inline or as a toast): no shared 'Error' modal. */
  silent?: boolean;
  /** The screen handles a 401 of this call itself: no 'Please sign in again' modal. */
  ownUnauthorized?: boolean;
  signal?: AbortSignal;
}

/** A failed API call; `message` follows the spec's error text rule. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, message: string, body: unknown) {
    super(message);
    this.status = status;
    this.body = body;
  }

  /** The machine-readable code of the answer, such as EMAIL_NOT_VERIFIED. */
  get code(): string | undefined {
    if (this.body && typeof this.body === 'object' && 'code' in this.body) {
      const { code } = this.body;
      return typeof code === 'string' ? code : undefined;
    }
    return undefined;
  }
}

/** The text to show for any failure: the API's error text, else the generic message. */
export function describeError(error: unknown): string {
  return error instanceof ApiError ? error.message : messages.generic;
}

/** Every field message of a 400 answer, in order; the error text when there are none. */
export function fieldMessages(body: unknown): string[] {
  const list: string[] = [];
  if (body && typeof body === 'object' && 'errors' in body) {
    const { errors } = body as ApiErrorBody;
    if (errors && typeof errors === 'object') {
      for (const fieldErrors of Object.values(errors)) {
        if (Array.isArray(fieldErrors)) {
          for (const text of fieldErrors) if (typeof text === 'string' && text) list.push(text);
        }
      }
    }
  }
  return list.length > 0 ? list : [errorText(body)];
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  const url = `${API_BASE}${path.startsWith('/') ? path : `/${path}`}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(key, String(value));
  }
  const search = params.toString();
  return search ? `${url}?${search}` : url;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Calls the Cumulo API under /api with the stored bearer token and JSON bodies. */
export async function apiRequest(path: string, options: RequestOptions = {}): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getStoredToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: string | FormData | undefined;
  if (options.body instanceof FormData) {
    // A file upload: fetch writes the multipart Content-Type with its boundary itself.
    body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(0, messages.generic, undefined);
  }

  const payload = await readBody(response);
  if (response.ok) return payload;

  if (response.status === 401 && !options.ownUnauthorized && !path.startsWith(AUTH_CALL_PREFIX)) {
    unauthorizedChannel.emit({ path });
  }
  if (response.status === 400 && !options.silent) {
    badRequestChannel.emit({ messages: fieldMessages(payload) });
  }
  throw new ApiError(response.status, errorText(payload), payload);
}

type CallOptions = Omit<RequestOptions, 'method' | 'body'>;

export const api = {
  get: (path: string, options?: CallOptions) => apiRequest(path, { ...options, method: 'GET' }),
  post: (path: string, body?: unknown, options?: CallOptions) =>
    apiRequest(path, { ...options, method: 'POST', body }),
  put: (path: string, body?: unknown, options?: CallOptions) =>
    apiRequest(path, { ...options, method: 'PUT', body }),
  delete: (path: string, options?: CallOptions) => apiRequest(path, { ...options, method: 'DELETE' }),
};
