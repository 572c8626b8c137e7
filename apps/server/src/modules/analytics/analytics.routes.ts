import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ALLOCATION_PRODUCT_KEYS,
  allocationMonthlyCost,
  analyticsOverview,
  analyticsPeriods,
  analyticsPeriodsQuery,
  analyticsQuery,
  analyticsRefreshBody,
  analyticsRunView,
  analyticsRunsQuery,
  bucketCost,
  dashboardAnalyticsItem,
  databaseCost,
  messageAnswer,
  productTotalCost,
  type AllocationProduct,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AnalyticsCostsService } from './analytics-costs.service.ts';
import type { AnalyticsService } from './analytics.service.ts';

const allocationParams = z.object({
  product: z.enum(ALLOCATION_PRODUCT_KEYS as [AllocationProduct, ...AllocationProduct[]]),
});

/** The ingestion calls of issue 24 and the cost reads of an account's month (spec 002 §7 "Analytics and cost"). */
export function analyticsRoutes(
  service: AnalyticsService,
  costs: AnalyticsCostsService,
  auth: AuthService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['analytics'];
    const member = { preHandler: auth.requireAuth };

    app.post(
      '/analytics/refresh',
      {
        ...member,
        schema: {
          tags,
          description: "Reads the account's billing reports again now (Owner, Admin).",
          body: analyticsRefreshBody,
          response: { 202: messageAnswer },
        },
      },
      async (request, reply) =>
        reply.status(202).send(await service.refresh(principalOf(request), request.body.cloudId)),
    );

    app.get(
      '/analytics/runs',
      {
        ...member,
        schema: {
          tags,
          description:
            "The account's billing-report ingestion runs, newest first, with their errors in words.",
          querystring: analyticsRunsQuery,
          response: { 200: z.array(analyticsRunView) },
        },
      },
      async (request) => service.runs(principalOf(request), request.query.cloudId),
    );

    app.get(
      '/analytics',
      {
        ...member,
        schema: {
          tags,
          description:
            "The account's month: categories, actual and forecast, compute and storage cost, the year's trend.",
          querystring: analyticsQuery,
          response: { 200: analyticsOverview },
        },
      },
      async (request) => costs.overview(principalOf(request), request.query),
    );

    app.get(
      '/analytics/product',
      {
        ...member,
        schema: {
          tags,
          description: "Every product's cost of the month, costliest first.",
          querystring: analyticsQuery,
          response: { 200: z.array(productTotalCost) },
        },
      },
      async (request) => costs.products(principalOf(request), request.query),
    );

    app.get(
      '/analytics/allocation/:product',
      {
        ...member,
        schema: {
          tags,
          description: "One product's month by usage type, operation and region (the donuts).",
          params: allocationParams,
          querystring: analyticsQuery,
          response: { 200: allocationMonthlyCost },
        },
      },
      async (request) => costs.allocation(principalOf(request), request.params.product, request.query),
    );

    app.get(
      '/analytics/detail/buckets',
      {
        ...member,
        schema: {
          tags,
          description: "The month's S3 cost per bucket, usage type and operation.",
          querystring: analyticsQuery,
          response: { 200: z.array(bucketCost) },
        },
      },
      async (request) => costs.buckets(principalOf(request), request.query),
    );

    app.get(
      '/analytics/detail/databases',
      {
        ...member,
        schema: {
          tags,
          description: "The month's RDS cost per database, usage type and operation.",
          querystring: analyticsQuery,
          response: { 200: z.array(databaseCost) },
        },
      },
      async (request) => costs.databases(principalOf(request), request.query),
    );

    app.get(
      '/analytics/periods',
      {
        ...member,
        schema: {
          tags,
          description:
            "The months the account's billing reports hold, newest first, with their cost (of one linked account when awsAccountId is given), and the reports' usage accounts.",
          querystring: analyticsPeriodsQuery,
          response: { 200: analyticsPeriods },
        },
      },
      async (request) => costs.periods(principalOf(request), request.query),
    );

    app.get(
      '/analytics/dashboard',
      {
        ...member,
        schema: {
          tags,
          description: "This month's costliest items over the organisation's accounts (the dashboard).",
          response: { 200: z.array(dashboardAnalyticsItem) },
        },
      },
      async (request) => costs.dashboard(principalOf(request)),
    );
  };
}
