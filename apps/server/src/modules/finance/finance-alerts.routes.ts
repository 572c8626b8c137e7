import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  budgetAlert,
  budgetAlertConfig,
  budgetAlertQuery,
  financeSettings,
  financeSettingsBody,
  messageAnswer,
  setBudgetAlertBody,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { FinanceAlertsService } from './finance-alerts.service.ts';
import type { FinanceSettingsService } from './finance-settings.service.ts';

/** Budget alerts and finance settings (spec 002 §7 "Budget and finance") under /api; the services gate them. */
export function financeAlertsRoutes(
  alerts: FinanceAlertsService,
  settings: FinanceSettingsService,
  auth: AuthService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['finance'];
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/finance/budget',
      {
        ...member,
        schema: {
          tags,
          description: "The alert of one cloud and product, or a new one's defaults (id null).",
          querystring: budgetAlertQuery,
          response: { 200: budgetAlertConfig },
        },
      },
      async (request) => alerts.config(principalOf(request), request.query.cloud, request.query.product),
    );

    app.get(
      '/finance/alerts',
      { ...member, schema: { tags, response: { 200: z.array(budgetAlert) } } },
      async (request) => alerts.list(principalOf(request)),
    );

    app.post(
      '/finance/alerts',
      {
        ...member,
        schema: {
          tags,
          description: 'One alert per cloud and product: saving again replaces its percentages and range.',
          body: setBudgetAlertBody,
          response: { 200: messageAnswer.extend({ alert: budgetAlert }) },
        },
      },
      async (request) => alerts.save(principalOf(request), request.body),
    );

    app.delete(
      '/finance/alerts/:id',
      { ...member, schema: { tags, params: z.object({ id: z.uuid() }), response: { 200: messageAnswer } } },
      async (request) => alerts.remove(principalOf(request), request.params.id),
    );

    app.get(
      '/finance/settings',
      { ...member, schema: { tags, response: { 200: financeSettings } } },
      async (request) => settings.get(principalOf(request)),
    );

    app.put(
      '/finance/settings',
      {
        ...member,
        schema: {
          tags,
          body: financeSettingsBody,
          response: { 200: messageAnswer.extend({ settings: financeSettings }) },
        },
      },
      async (request) => settings.put(principalOf(request), request.body),
    );
  };
}
