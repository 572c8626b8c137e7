import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  chatChannelsAnswer,
  chatWebhookBody,
  chatWebhookView,
  messageAnswer,
  publicShareView,
  shareByChatBody,
  shareByEmailBody,
  shareDownloadAnswer,
  shareDownloadBody,
  shareListAnswer,
  shareListQuery,
  text,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { SharingService, Visitor } from './sharing.service.ts';

const visitor = (request: FastifyRequest): Visitor => ({
  ip: request.ip,
  userAgent: request.headers['user-agent'],
});

// Tokens are 43 base64url characters; anything else is simply an unknown link.
const tokenParams = z.object({ token: text({ max: 256 }) });

/** Sharing calls of spec 001 §7 under /api, the share list, the chat webhook and the public /sharing/{token} calls. */
export function sharingRoutes(service: SharingService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['sharing'];
    // Who may do what is the service's (authz/policy.ts).
    const member = { preHandler: auth.requireAuth };

    app.post(
      '/transfers/share_files_by_email',
      { ...member, schema: { tags, body: shareByEmailBody, response: { 200: messageAnswer } } },
      async (request) => service.shareByEmail(principalOf(request), request.body),
    );

    app.post(
      '/transfers/share_files_by_chat',
      {
        ...member,
        schema: {
          tags,
          description: "Spec's share_by_slack_files: posts the link to the organisation's incoming webhook.",
          body: shareByChatBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.shareByChat(principalOf(request), request.body),
    );

    app.get(
      '/transfers/slack_channels',
      { ...member, schema: { tags, response: { 200: chatChannelsAnswer } } },
      async (request) => service.channels(principalOf(request)),
    );

    app.get(
      '/organizations/_me/chat_webhook',
      { ...member, schema: { tags, response: { 200: chatWebhookView } } },
      async (request) => service.webhookView(principalOf(request)),
    );

    app.put(
      '/organizations/_me/chat_webhook',
      { ...member, schema: { tags, body: chatWebhookBody, response: { 200: chatWebhookView } } },
      async (request) => service.saveWebhook(principalOf(request), request.body),
    );

    app.delete(
      '/organizations/_me/chat_webhook',
      { ...member, schema: { tags, response: { 200: messageAnswer } } },
      async (request) => service.deleteWebhook(principalOf(request)),
    );

    app.get(
      '/shares',
      { ...member, schema: { tags, querystring: shareListQuery, response: { 200: shareListAnswer } } },
      async (request) => service.list(principalOf(request), request.query.page, request.query.page_size),
    );

    app.delete(
      '/shares/:id',
      // Any string: a token or another organisation's id is simply not a share of this organisation (404).
      {
        ...member,
        schema: { tags, params: z.object({ id: text({ max: 256 }) }), response: { 200: messageAnswer } },
      },
      async (request) => service.revoke(principalOf(request), request.params.id),
    );

    // Public: the link is the credential, so these take no Authorization header.
    app.get(
      '/sharing/:token',
      { schema: { tags, security: [], params: tokenParams, response: { 200: publicShareView } } },
      async (request) => service.view(request.params.token, visitor(request)),
    );

    app.post(
      '/sharing/:token/download',
      {
        schema: {
          tags,
          security: [],
          params: tokenParams,
          body: shareDownloadBody,
          response: { 200: shareDownloadAnswer },
        },
      },
      async (request) => service.download(request.params.token, request.body, visitor(request)),
    );
  };
}
