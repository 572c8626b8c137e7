import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { calculateCostBody, costEstimate, s3CostsAnswer, transferCostsBody } from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { CostsService } from './costs.service.ts';

/** The transfer cost calls (spec 001 §7 "Calculate cost", spec 002 §7 /transfers/costs). */
export function costsRoutes(service: CostsService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['transfers'];
    const member = { preHandler: auth.requireAuth };

    app.post(
      '/transfer/calculate_cost',
      {
        ...member,
        schema: {
          tags,
          description:
            "Cost of moving `size` GB from the source account: the source provider's egress per GB plus the " +
            '$0.15/GB cloud to cloud transfer charge, to 5 decimals.',
          body: calculateCostBody,
          response: { 200: costEstimate },
        },
      },
      async (request) => service.calculate(principalOf(request), request.body),
    );

    app.post(
      '/transfers/costs',
      {
        ...member,
        schema: {
          tags,
          description:
            '`size` bytes through the provider `service_code` (aws, wasabi, azure, backblaze, genericS3, google, ' +
            'filebase). `direction` c2c: egress + transfer charge; download: egress; upload: free.',
          body: transferCostsBody,
          response: { 200: costEstimate },
        },
      },
      async (request) => service.costs(request.body),
    );

    app.get(
      '/transfers/s3_costs',
      {
        ...member,
        schema: {
          tags,
          description:
            "S3's prices in Cumulo's estimates: storage per GB-month by tier, egress, ingress and the cloud to " +
            'cloud transfer charge, per GB in USD.',
          response: { 200: s3CostsAnswer },
        },
      },
      async () => service.s3Costs(),
    );
  };
}
