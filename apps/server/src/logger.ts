import pino from 'pino';
import { jobLogFields } from './runtime/request-context.ts';

export type Logger = pino.Logger;

/** Paths pino must never print; tokens in URLs are masked by the request serializer below (maskUrl). */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.new_password',
  '*.old_password',
  '*.passwordHash',
  '*.secret',
  '*.token',
  '*.jwtToken',
  '*.requestToken',
  '*.resetToken',
  '*.session',
  '*.userCode',
  // A card's number and security code (modules/billing): passed to the gateway, never printed.
  '*.full_number',
  '*.cvv',
  '*.number',
  '*.cvc',
  '*.credit_card_attributes.full_number',
  '*.credit_card_attributes.cvv',
];

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  id?: string;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // A job's lines name the job and the request that started it (runtime/request-context.ts).
      mixin: jobLogFields,
      serializers: {
        err: serializeError,
        req: (req: LoggedRequest) => ({
          id: req.id,
          method: req.method,
          url: maskUrl(req.url ?? ''),
          ip: req.ip,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination ?? pino.destination(1),
  );
}

/**
 * Fields of database errors that carry bound values: drizzle's `params` (every value of a failed query: password
 * hashes, sealed credentials), and PostgreSQL's `detail` ("Failing row contains (…)", "Key (email)=(…)") and
 * `where`. The SQL text (`query`) and the error's code, table and constraint stay: they say what failed.
 */
const VALUE_FIELDS = ['params', 'parameters', 'detail', 'where', 'internalQuery'];

/** pino's error serializer, with no bound value of a failed query left in the fields, the message or the stack. */
export function serializeError(error: Error): Record<string, unknown> {
  const serialized: Record<string, unknown> = { ...pino.stdSerializers.err(error) };
  for (const field of VALUE_FIELDS) delete serialized[field];
  for (const field of ['message', 'stack'] as const) {
    const text = serialized[field];
    if (typeof text === 'string') serialized[field] = withoutValues(text);
  }
  return serialized;
}

/**
 * Drops drizzle's "params: …" line (up to the stack frames) and PostgreSQL's echo of a rejected value
 * ('invalid input syntax for type uuid: "…"') from an error text.
 */
function withoutValues(text: string): string {
  return text
    .replace(/\nparams: [\s\S]*?(?=\n {4}at |; caused by|$)/g, '\nparams: [redacted]')
    .replace(/(: )"[^"\n]*"/g, '$1"[redacted]"');
}

/** Path segments after these hold a link token: /sharing/{token}, /resetpassword/{token}, /verify/{token}. */
const TOKEN_PATHS =
  /(\/(?:sharing|resetpassword|reset_password|reset-password|verify|invitation|invite)\/)[^/?#]+/gi;
/** Any other segment shaped like a secret: a long random base64url string or a JWT (UUIDs are ids, not secrets). */
const SECRET_SEGMENT = /^(?:[A-Za-z0-9_-]{32,}|eyJ[\w-]*\.[\w-]+\.[\w-]*)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Query parameters whose value is a secret: link and session tokens, passwords, codes, signed-URL signatures. */
const SECRET_PARAM =
  /token|secret|password|passwd|signature|credential|session|apikey|api_key|^sig$|^code$|^usercode$/i;

/** Masks every secret-bearing path segment and query parameter value of a URL before it is logged. */
export function maskUrl(url: string): string {
  const queryAt = url.search(/[?#]/);
  const pathPart = queryAt === -1 ? url : url.slice(0, queryAt);
  const rest = queryAt === -1 ? '' : url.slice(queryAt);
  const maskedPath = pathPart
    .replace(TOKEN_PATHS, '$1***')
    .split('/')
    .map((segment) => (SECRET_SEGMENT.test(segment) && !UUID.test(segment) ? '***' : segment))
    .join('/');
  const maskedRest = rest.replace(
    /([?&#;])([^=&#;]*)=([^&#;]*)/g,
    (whole, separator: string, name: string) =>
      SECRET_PARAM.test(safeDecode(name)) ? `${separator}${name}=***` : whole,
  );
  return maskedPath + maskedRest;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
