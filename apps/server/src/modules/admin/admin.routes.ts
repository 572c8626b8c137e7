import { Readable } from 'node:stream';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import {
  adminAccountOptions,
  adminAccountsAnswer,
  adminAccountsQuery,
  adminTransferCostsAnswer,
  adminTransferCostsQuery,
  adminUsageFiltersAnswer,
  adminUsageFiltersQuery,
  adminUsageHistoryAnswer,
  adminUsageHistoryQuery,
  adminUsageTotalsAnswer,
  adminUsageTotalsQuery,
  adminUserActiveBody,
  adminUsersAnswer,
  adminUsersQuery,
  createAccountAnswer,
  createAccountBody,
  inviteAdminUserBody,
  messageAnswer,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AdminService } from './admin.service.ts';

/** A report as its "Download Report" file: streamed, with a BOM so spreadsheets read it as UTF-8. */
function sendCsv(reply: FastifyReply, filename: string, lines: AsyncIterable<string>) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(Readable.from(lines));
}

const csvNote =
  ' With `format=csv`: every row under the same filter, as the table shows it, streamed as text/csv.';

/** The instance operator's console (modules/admin/README.md); the service refuses everyone else with 403. */
export function adminRoutes(service: AdminService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['admin'];
    const guarded = { preHandler: auth.requireAuth };

    app.get(
      '/admin/accounts',
      {
        ...guarded,
        schema: {
          tags,
          description: 'Every organisation with the previous month’s usage and cost, by name.' + csvNote,
          querystring: adminAccountsQuery,
          response: { 200: adminAccountsAnswer },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (request.query.format === 'csv') {
          return sendCsv(reply, 'accounts.csv', await service.accountsCsv(principal, request.query));
        }
        return service.accounts(principal, request.query);
      },
    );

    app.get(
      '/admin/accounts/options',
      { ...guarded, schema: { tags, response: { 200: adminAccountOptions } } },
      async (request) => service.accountOptions(principalOf(request)),
    );

    app.post(
      '/admin/accounts',
      { ...guarded, schema: { tags, body: createAccountBody, response: { 201: createAccountAnswer } } },
      async (request, reply) =>
        reply.code(201).send(await service.createAccount(principalOf(request), request.body)),
    );

    app.get(
      '/admin/users',
      {
        ...guarded,
        schema: {
          tags,
          description:
            'Every user (or one organisation’s), newest first, with their usage of all time.' + csvNote,
          querystring: adminUsersQuery,
          response: { 200: adminUsersAnswer },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (request.query.format === 'csv') {
          return sendCsv(reply, 'users.csv', await service.usersCsv(principal, request.query));
        }
        return service.users(principal, request.query);
      },
    );

    app.post(
      '/admin/users',
      {
        ...guarded,
        schema: {
          tags,
          description:
            'Invites someone into the chosen organisation: as Owner when it has none yet, else as User.',
          body: inviteAdminUserBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.inviteUser(principalOf(request), request.body),
    );

    app.put(
      '/admin/users/:id/active',
      {
        ...guarded,
        schema: {
          tags,
          params: z.object({ id: z.uuid() }),
          body: adminUserActiveBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.setUserActive(principalOf(request), request.params.id, request.body.active),
    );

    app.get(
      '/admin/usage/filters',
      {
        ...guarded,
        schema: { tags, querystring: adminUsageFiltersQuery, response: { 200: adminUsageFiltersAnswer } },
      },
      async (request) => service.usageFilters(principalOf(request), request.query.account),
    );

    app.get(
      '/admin/usage/totals',
      {
        ...guarded,
        schema: {
          tags,
          description: 'One row per direction: bytes copied and their transfer cost.' + csvNote,
          querystring: adminUsageTotalsQuery,
          response: { 200: adminUsageTotalsAnswer },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (request.query.format === 'csv') {
          return sendCsv(reply, 'usage-totals.csv', await service.usageTotalsCsv(principal, request.query));
        }
        return { totals: await service.usageTotals(principal, request.query) };
      },
    );

    app.get(
      '/admin/usage/history',
      {
        ...guarded,
        schema: {
          tags,
          description: 'The transfer batches under the filter, newest first.' + csvNote,
          querystring: adminUsageHistoryQuery,
          response: { 200: adminUsageHistoryAnswer },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (request.query.format === 'csv') {
          return sendCsv(
            reply,
            'transfer-history.csv',
            await service.usageHistoryCsv(principal, request.query),
          );
        }
        return service.usageHistory(principal, request.query);
      },
    );

    app.get(
      '/admin/transfer-costs',
      {
        ...guarded,
        schema: {
          tags,
          description:
            'Bytes and cost per direction and pair of accounts; `search` over the direction (20 characters).' +
            csvNote,
          querystring: adminTransferCostsQuery,
          response: { 200: adminTransferCostsAnswer },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (request.query.format === 'csv') {
          return sendCsv(
            reply,
            'transfer-costs.csv',
            await service.transferCostsCsv(principal, request.query),
          );
        }
        return service.transferCosts(principal, request.query);
      },
    );
  };
}
