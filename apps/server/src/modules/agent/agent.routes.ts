import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  agentDeviceParams,
  agentDevicesAnswer,
  agentDownloadAnswer,
  agentDownloadBody,
  agentDownloadUrlsAnswer,
  agentDownloadUrlsBody,
  agentDownloadParams,
  agentHistoryAnswer,
  agentHistoryItem,
  agentHistoryQuery,
  agentHistoryReport,
  agentMeAnswer,
  agentPairingCode,
  agentSummaryAnswer,
  agentSummaryQuery,
  agentTicketAnswer,
  agentTicketBody,
  messageAnswer,
  redeemAgentCodeAnswer,
  redeemAgentCodeBody,
  redeemAgentTicketAnswer,
  redeemAgentTicketBody,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AgentPackages } from './agent-package.ts';
import type { AgentService } from './agent.service.ts';

/** The transfer agent's calls (packages/contract/src/agent.ts "server API"), under /api. */
export function agentRoutes(
  service: AgentService,
  packages: AgentPackages,
  auth: AuthService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['transfer agent'];
    // Pairing, devices and tickets need a sign-in: a leaked API key or device token cannot pair more agents.
    const session = { preHandler: auth.requireSession };
    const device = { preHandler: auth.requireDevice };
    const member = { preHandler: auth.requireAuth };

    app.post(
      '/agent/pairing-codes',
      {
        ...session,
        schema: {
          tags,
          description: `A one-time code (10 minutes) that pairs a transfer agent with the caller's account.`,
          response: { 201: agentPairingCode },
        },
      },
      async (request, reply) => reply.status(201).send(await service.createCode(principalOf(request))),
    );

    app.post(
      '/agent/devices',
      {
        schema: {
          tags,
          description:
            'No session: the pairing code is the proof. Answers the device token once; the server keeps its hash. ' +
            'Failed codes slow the client address down (429).',
          body: redeemAgentCodeBody,
          response: { 201: redeemAgentCodeAnswer },
          security: [],
        },
      },
      async (request, reply) => reply.status(201).send(await service.redeemCode(request.body, request.ip)),
    );

    app.get(
      '/agent/devices',
      {
        ...session,
        schema: {
          tags,
          description: "The caller's paired agents; an Owner's or Admin's: the organisation's.",
          response: { 200: agentDevicesAnswer },
        },
      },
      async (request) => service.listDevices(principalOf(request)),
    );

    app.delete(
      '/agent/devices/:id',
      { ...session, schema: { tags, params: agentDeviceParams, response: { 200: messageAnswer } } },
      async (request) => service.revoke(principalOf(request), request.params.id),
    );

    app.post(
      '/agent/tickets',
      {
        ...session,
        schema: { tags, body: agentTicketBody, response: { 201: agentTicketAnswer } },
      },
      async (request, reply) =>
        reply.status(201).send(await service.createTicket(principalOf(request), request.body.device_id)),
    );

    app.post(
      '/agent/tickets/redeem',
      {
        ...device,
        schema: { tags, body: redeemAgentTicketBody, response: { 200: redeemAgentTicketAnswer } },
      },
      async (request) => service.redeemTicket(principalOf(request), request.body.ticket),
    );

    app.get('/agent/me', { ...device, schema: { tags, response: { 200: agentMeAnswer } } }, async (request) =>
      service.me(principalOf(request)),
    );

    app.post(
      '/agent/downloads',
      {
        ...device,
        schema: {
          tags,
          description:
            'A page (at most 500) of the files under the chosen keys, folders walked, dot-names left out, each ' +
            'with a signed GET URL; `continuation` fetches the next page.',
          body: agentDownloadBody,
          response: { 200: agentDownloadAnswer },
        },
      },
      async (request) => service.downloads(principalOf(request), request.body),
    );

    app.post(
      '/agent/downloads/urls',
      {
        ...device,
        schema: {
          tags,
          description:
            'Fresh signed GET URLs (at most 500) for files a download listed, in the order asked: the agent asks ' +
            'for the next files as it reaches them. Nothing is looked up; a key gone from the bucket answers 404 ' +
            'to its GET.',
          body: agentDownloadUrlsBody,
          response: { 200: agentDownloadUrlsAnswer },
        },
      },
      async (request) => service.downloadUrls(principalOf(request), request.body),
    );

    app.post(
      '/agent/history',
      {
        ...device,
        schema: {
          tags,
          description: 'Records an ended transfer (idempotent on transfer_id) with its cost.',
          body: agentHistoryReport,
          response: { 200: agentHistoryItem },
        },
      },
      async (request) => service.report(principalOf(request), request.body),
    );

    app.get(
      '/transfers/history',
      {
        ...member,
        schema: { tags, querystring: agentHistoryQuery, response: { 200: agentHistoryAnswer } },
      },
      async (request) => service.history(principalOf(request), request.query.page, request.query.limit),
    );

    app.get(
      '/transfers/summary',
      {
        ...member,
        schema: { tags, querystring: agentSummaryQuery, response: { 200: agentSummaryAnswer } },
      },
      async (request) =>
        service.summary(
          principalOf(request),
          new Date(request.query.start_date),
          new Date(request.query.end_date),
        ),
    );

    app.get(
      '/agent/download/:platform',
      {
        schema: {
          tags,
          description:
            'Public: the transfer agent for a platform, as a zip (application/zip); 503 with a message until the ' +
            'agent is built.',
          params: agentDownloadParams,
          security: [],
        },
      },
      async (request, reply) => {
        const zip = await packages.zipFor(request.params.platform);
        return reply
          .header('content-disposition', `attachment; filename="cumulo-agent-${request.params.platform}.zip"`)
          .header('cache-control', 'no-cache')
          .type('application/zip')
          .send(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
      },
    );
  };
}
