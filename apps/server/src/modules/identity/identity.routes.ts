import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  changePasswordAnswer,
  changePasswordBody,
  forgotPasswordBody,
  generateMfaAnswer,
  jwtAnswer,
  loginAnswer,
  loginBody,
  messageAnswer,
  mfaRespondBody,
  recoveryCodesAnswer,
  recoveryCodesStatus,
  renewRecoveryCodesBody,
  requestTokenAnswer,
  resendVerificationBody,
  resetPasswordBody,
  role,
  setMfaAnswer,
  setMfaBody,
  signupAnswer,
  signupBody,
  signupCompletionBody,
  signupInfoAnswer,
  signupInfoQuery,
  updateProfileBody,
  userProfile,
  verifyUserBody,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { ClientInfo, IdentityService } from './identity.service.ts';

const client = (request: FastifyRequest): ClientInfo => ({
  ip: request.ip,
  userAgent: request.headers['user-agent'],
});

/** The identity calls of spec 000 §7 and 002 §7, at the spec's paths under /api. */
export function identityRoutes(service: IdentityService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const guarded = { preHandler: auth.requireAuth };
    // The account's own credentials and its session: a sign-in only, never an API key.
    const session = { preHandler: auth.requireSession };
    const tags = ['identity'];

    app.post(
      '/authentication/request_token',
      { schema: { tags, response: { 200: requestTokenAnswer } } },
      async () => ({ token: await service.requestToken() }),
    );

    app.post(
      '/authentication/Login',
      { schema: { tags, body: loginBody, response: { 200: loginAnswer } } },
      async (request) => {
        await auth.checkRequestToken(request.body.requestToken);
        return service.login(request.body.username, request.body.password, client(request));
      },
    );

    app.post(
      '/authentication/mfa_respond',
      { schema: { tags, body: mfaRespondBody, response: { 200: jwtAnswer } } },
      async (request) => {
        await auth.checkRequestToken(request.body.requestToken);
        return {
          jwtToken: await service.mfaRespond(request.body.session, request.body.userCode, client(request)),
        };
      },
    );

    app.post(
      '/authentication/forgot_password',
      { schema: { tags, body: forgotPasswordBody, response: { 200: messageAnswer } } },
      async (request) => {
        await auth.checkRequestToken(request.body.requestToken);
        return service.forgotPassword(request.body.username, client(request));
      },
    );

    app.post(
      '/authentication/reset_password',
      { schema: { tags, body: resetPasswordBody, response: { 200: messageAnswer } } },
      async (request) => {
        await auth.checkRequestToken(request.body.requestToken);
        return service.resetPassword(request.body.resetToken, request.body.password);
      },
    );

    app.post('/authentication/logout', { ...session, schema: { tags } }, async (request, reply) => {
      await service.logout(principalOf(request));
      return reply.status(204).send();
    });

    app.put(
      '/verify_user',
      { schema: { tags, body: verifyUserBody, response: { 200: messageAnswer } } },
      async (request) => service.verifyUser(request.body.verification_token),
    );

    app.put(
      '/resend_verification_email',
      { schema: { tags, body: resendVerificationBody, response: { 200: messageAnswer } } },
      async (request) => service.resendVerification(request.body?.email, client(request)),
    );

    app.post(
      '/users',
      { schema: { tags, body: signupBody, response: { 201: signupAnswer } } },
      async (request, reply) => reply.status(201).send(await service.signup(request.body, client(request))),
    );

    app.get(
      '/user/signupinfo',
      { schema: { tags, querystring: signupInfoQuery, response: { 200: signupInfoAnswer } } },
      async (request) => service.signupInfo(request.query.token),
    );

    app.post(
      '/user/signup',
      { schema: { tags, body: signupCompletionBody, response: { 201: messageAnswer } } },
      async (request, reply) => reply.status(201).send(await service.completeInvitation(request.body)),
    );

    for (const path of ['/users/_me', '/user/userinfo']) {
      app.get(path, { ...guarded, schema: { tags, response: { 200: userProfile } } }, async (request) =>
        service.profile(principalOf(request)),
      );
    }

    app.put(
      '/users/_me',
      { ...guarded, schema: { tags, body: updateProfileBody, response: { 200: userProfile } } },
      async (request) => service.updateProfile(principalOf(request), request.body),
    );

    app.put(
      '/users/_me/change_password',
      { ...session, schema: { tags, body: changePasswordBody, response: { 200: changePasswordAnswer } } },
      async (request) =>
        service.changePassword(
          principalOf(request),
          request.body.old_password,
          request.body.new_password,
          client(request),
        ),
    );

    app.get(
      '/users/:id',
      { ...guarded, schema: { tags, params: z.object({ id: z.uuid() }), response: { 200: userProfile } } },
      async (request) => service.memberProfile(principalOf(request), request.params.id),
    );

    app.post(
      '/user/generate_mfa_token',
      { ...session, schema: { tags, response: { 200: generateMfaAnswer } } },
      async (request) => service.generateMfa(principalOf(request)),
    );

    app.post(
      '/user/set_mfa',
      { ...session, schema: { tags, body: setMfaBody, response: { 200: setMfaAnswer } } },
      async (request) => service.setMfa(principalOf(request), request.body.enabled, request.body.userCode),
    );

    // Not in the spec: the recovery codes of issue 21, beside the spec's MFA calls.
    app.get(
      '/user/mfa_recovery_codes',
      { ...session, schema: { tags, response: { 200: recoveryCodesStatus } } },
      async (request) => service.recoveryCodesStatus(principalOf(request)),
    );

    app.post(
      '/user/mfa_recovery_codes',
      { ...session, schema: { tags, body: renewRecoveryCodesBody, response: { 200: recoveryCodesAnswer } } },
      async (request) => service.renewRecoveryCodes(principalOf(request), request.body, client(request)),
    );

    app.get('/roles', { ...guarded, schema: { tags, response: { 200: z.array(role) } } }, async () =>
      service.roles(),
    );
  };
}
