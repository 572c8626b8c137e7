import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  budgetHierarchical,
  budgetQuery,
  budgetTreeQuery,
  createProductBody,
  financeProduct,
  financeProductsQuery,
  messageAnswer,
  putBudgetBody,
  treeNode,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { BudgetsService } from './budgets.service.ts';

/** Budgets, custom products and the budget-versus-actual views (spec 002 §7 "Budget and finance", issue 25). */
export function budgetsRoutes(service: BudgetsService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['finance'];
    const member = { preHandler: auth.requireAuth };

    app.put(
      '/finance/budget',
      {
        ...member,
        schema: {
          tags,
          description:
            "Sets a cloud's budget for a label: 'yearly' spreads the amount over start..end (one year; default " +
            "January to December), the cents left over on the last month; 'monthly' sets `month`.",
          body: putBudgetBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.put(principalOf(request), request.body),
    );

    app.get(
      '/finance/budget/hierarchical',
      {
        ...member,
        schema: {
          tags,
          description:
            "A cloud's label by month for a year: budget, actual and forecast, the sub-budget warning on the " +
            'Total, the chart (with a compared label) and the yearly sums.',
          querystring: budgetQuery,
          response: { 200: budgetHierarchical },
        },
      },
      async (request) => service.hierarchical(principalOf(request), request.query),
    );

    app.get(
      '/finance/budget/tree',
      {
        ...member,
        schema: {
          tags,
          description: "Every cloud account's year: its Total budget and actual, and each product's.",
          querystring: budgetTreeQuery,
          response: { 200: z.array(treeNode) },
        },
      },
      async (request) => service.tree(principalOf(request), request.query.year),
    );

    app.get(
      '/finance/budget.csv',
      {
        ...member,
        schema: {
          tags,
          description:
            'The budget-versus-actual table as a CSV attachment: month, budget, actual, forecast, difference, ' +
            'percent used.',
          querystring: budgetQuery,
        },
      },
      async (request, reply) => {
        const { filename, body } = await service.csv(principalOf(request), request.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .send(body);
      },
    );

    app.get(
      '/finance/products',
      {
        ...member,
        schema: {
          tags,
          description:
            "What a budget can be set for: the cloud's report product codes and the analytics products, then " +
            "the organisation's custom products.",
          querystring: financeProductsQuery,
          response: { 200: z.array(financeProduct) },
        },
      },
      async (request) => service.products(principalOf(request), request.query.cloud),
    );

    app.post(
      '/finance/products',
      {
        ...member,
        schema: {
          tags,
          description: 'Adds a custom product (a name and a category) budgets can be set for.',
          body: createProductBody,
          response: { 201: messageAnswer.extend({ product: financeProduct }) },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await service.createProduct(principalOf(request), request.body)),
    );
  };
}
