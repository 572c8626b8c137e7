import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  SSO_ERROR_MESSAGES,
  authProvidersAnswer,
  loginAnswer,
  oauthBody,
  oauthStartAnswer,
  oauthStartBody,
  type SsoErrorCode,
} from '@cumulo/contract';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { SSO_FLOW_TTL_SECONDS, type SsoService } from './sso.service.ts';

/** The cookie that ties a callback to the browser that started the flow; only the callback's path receives it. */
const STATE_COOKIE = 'cumulo_sso_state';
const CALLBACK_PATH = '/api/oauth/callback';

const isSsoErrorCode = (code: string): code is SsoErrorCode => code in SSO_ERROR_MESSAGES;

function stateCookie(value: string, maxAge: number, secure: boolean) {
  const attributes = [`Path=${CALLBACK_PATH}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) attributes.push('Secure');
  return [`${STATE_COOKIE}=${value}`, ...attributes].join('; ');
}

function stateFrom(request: FastifyRequest): string | undefined {
  const pairs = (request.headers.cookie ?? '').split(';').map((pair) => pair.trim().split('='));
  return pairs.find(([name]) => name === STATE_COOKIE)?.[1];
}

/**
 * Single sign-on (modules/identity README "Single sign-on"): the providers to offer, the start of a flow, the
 * provider's callback, and `POST /oauth` of spec 000 §7, which answers like Login.
 */
export function ssoRoutes(service: SsoService, publicUrl: string, log: Logger): FastifyPluginAsyncZod {
  const secure = publicUrl.startsWith('https:');
  const back = (reply: FastifyReply, fragment: string) =>
    reply
      .header('set-cookie', stateCookie('', 0, secure))
      .header('cache-control', 'no-store')
      .redirect(`${publicUrl}/login#${fragment}`, 303);

  return async (app) => {
    const tags = ['identity'];

    app.get(
      '/authentication/providers',
      { schema: { tags, response: { 200: authProvidersAnswer } } },
      async () => service.providers(),
    );

    app.post(
      '/oauth/start',
      { schema: { tags, body: oauthStartBody, response: { 200: oauthStartAnswer } } },
      async (request, reply) => {
        const flow = await service.start(request.body.service, request.ip);
        reply.header('set-cookie', stateCookie(flow.state, SSO_FLOW_TTL_SECONDS, secure));
        return { authorization_url: flow.authorizationUrl };
      },
    );

    // The provider redirects the browser here; the answer is always a redirect to /login, never a JSON error.
    app.get('/oauth/callback', { schema: { tags, hide: true } }, async (request, reply) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      try {
        const signedIn = await service.callback(query, stateFrom(request));
        return back(reply, new URLSearchParams({ sso: signedIn.code, service: signedIn.service }).toString());
      } catch (error) {
        const code = error instanceof AppError && isSsoErrorCode(error.code) ? error.code : undefined;
        if (!code) log.error({ err: error }, 'single sign-on callback failed');
        return back(reply, `sso_error=${code ?? 'SOMETHING_WENT_WRONG'}`);
      }
    });

    app.post(
      '/oauth',
      { schema: { tags, body: oauthBody, response: { 200: loginAnswer } } },
      async (request) =>
        service.signIn(request.body.token, { ip: request.ip, userAgent: request.headers['user-agent'] }),
    );
  };
}
