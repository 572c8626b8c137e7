import pino from 'pino';

export type Logger = pino.Logger;

/** Paths pino must never print; tokens in URLs are masked by the request serializer in app.ts. */
export const REDACT_PATHS = [
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
      serializers: {
        err: pino.stdSerializers.err,
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

/** Masks the values of token-bearing query parameters in a URL before it is logged. */
export function maskUrl(url: string): string {
  return url.replace(/([?&](?:token|access_token|resetToken|verification_token)=)[^&]*/gi, '$1***');
}
