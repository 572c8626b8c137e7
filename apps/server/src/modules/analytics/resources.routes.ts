import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  INSTANCE_KINDS,
  analyticsInstance,
  analyticsInvoiceDownload,
  analyticsInvoiceDownloadQuery,
  analyticsInvoices,
  analyticsInvoicesQuery,
  analyticsMonthQuery,
  analyticsQuery,
  analyticsServiceUsage,
  analyticsTransferItem,
  analyticsTransfersQuery,
  efsFileSystem,
  storageCostEstimate,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { ResourcesService } from './resources.service.ts';

/** The analytics read calls about resources, invoices, Cumulo's transfers and storage estimates (issue 24). */
export function analyticsResourcesRoutes(
  service: ResourcesService,
  auth: AuthService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['analytics'];
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/analytics/instances/:kind',
      {
        ...member,
        schema: {
          tags,
          description:
            "The month's EC2 or RDS instances with their cost per usage type, running or stopped (from the provider's API where the keys allow it, else from the report).",
          params: z.object({ kind: z.enum(INSTANCE_KINDS) }),
          querystring: analyticsQuery,
          response: { 200: z.array(analyticsInstance) },
        },
      },
      async (request) => service.instances(principalOf(request), request.params.kind, request.query),
    );

    app.get(
      '/analytics/efs',
      {
        ...member,
        schema: {
          tags,
          description: "The month's EFS file systems with their size, mount targets and cost.",
          querystring: analyticsQuery,
          response: { 200: z.array(efsFileSystem) },
        },
      },
      async (request) => service.efs(principalOf(request), request.query),
    );

    app.get(
      '/analytics/invoices',
      {
        ...member,
        schema: {
          tags,
          description: "One page of the files in the account's billing bucket, with the next page's token.",
          querystring: analyticsInvoicesQuery,
          response: { 200: analyticsInvoices },
        },
      },
      async (request) => service.invoices(principalOf(request), request.query),
    );

    app.get(
      '/analytics/invoices/download',
      {
        ...member,
        schema: {
          tags,
          description: "A short-lived link to one file of the account's billing bucket.",
          querystring: analyticsInvoiceDownloadQuery,
          response: { 200: analyticsInvoiceDownload },
        },
      },
      async (request) => service.invoiceDownload(principalOf(request), request.query),
    );

    app.get(
      '/analytics/transfers/history',
      {
        ...member,
        schema: {
          tags,
          description: "The organisation's latest finished transfers and what they cost.",
          querystring: analyticsTransfersQuery,
          response: { 200: z.array(analyticsTransferItem) },
        },
      },
      async (request) => service.transferHistory(principalOf(request), request.query.limit),
    );

    app.get(
      '/analytics/transfers/usage',
      {
        ...member,
        schema: {
          tags,
          description: "The month's use of each service against its quota (total -1 is unlimited).",
          querystring: analyticsMonthQuery,
          response: { 200: z.array(analyticsServiceUsage) },
        },
      },
      async (request) => service.transferUsage(principalOf(request), request.query.month),
    );

    app.get(
      '/analytics/estimates',
      {
        ...member,
        schema: {
          tags,
          description:
            "Every bucket's storage cost estimated from the inventory and the price table, beside the billed cost where a report has it.",
          querystring: analyticsMonthQuery,
          response: { 200: z.array(storageCostEstimate) },
        },
      },
      async (request) => service.estimates(principalOf(request), request.query.month),
    );
  };
}
