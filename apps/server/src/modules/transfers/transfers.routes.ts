import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  batchIdBody,
  messageAnswer,
  ongoingTransfers,
  transferBody,
  transferList,
  transferListQuery,
  transferProviderFilter,
  transferStarted,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { TransfersService } from './transfers.service.ts';

/** The Migration and Transfer Status calls of spec 001 §7 at the spec's paths under /api. */
export function transfersRoutes(service: TransfersService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['transfers'];
    const member = { preHandler: auth.requireAuth };

    app.post(
      '/transfer/transfer',
      { ...member, schema: { tags, body: transferBody, response: { 200: transferStarted } } },
      async (request) => {
        const { allowSkip, ...body } = request.body;
        return service.start(principalOf(request), { ...body, skipExisting: allowSkip });
      },
    );

    app.get(
      '/transfer/get_all',
      { ...member, schema: { tags, querystring: transferListQuery, response: { 200: transferList } } },
      async (request) => service.list(principalOf(request), request.query),
    );

    app.get(
      '/transfer/ongoing',
      {
        ...member,
        schema: { tags, querystring: transferProviderFilter, response: { 200: ongoingTransfers } },
      },
      async (request) => service.ongoing(principalOf(request), request.query),
    );

    app.post(
      '/transfer/cancel_transfer',
      { ...member, schema: { tags, body: batchIdBody, response: { 200: messageAnswer } } },
      async (request) => service.cancel(principalOf(request), request.body.Id),
    );

    app.post(
      '/transfer/retry_transfer',
      { ...member, schema: { tags, body: batchIdBody, response: { 200: transferStarted } } },
      async (request) => service.retry(principalOf(request), request.body.Id),
    );

    app.post(
      '/transfer/download_failed_files',
      {
        ...member,
        schema: { tags, body: batchIdBody, description: 'The failed files as CSV: key,size,error.' },
      },
      async (request, reply) => {
        const { fileName, body } = await service.failedFilesCsv(principalOf(request), request.body.Id);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${fileName}"`)
          .send(body);
      },
    );
  };
}
