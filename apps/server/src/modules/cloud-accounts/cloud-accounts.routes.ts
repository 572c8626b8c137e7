import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accountIdBody,
  accountIdQuery,
  accountMember,
  billingBucketBody,
  bucketExistsAnswer,
  bucketExistsQuery,
  cloudAccountView,
  createBucketAnswer,
  createBucketBody,
  insertAccountBody,
  legacyCreateAccountBody,
  liveBucket,
  messageAnswer,
  storageListItem,
  text,
  updateAccountBody,
  wasabiSubAccountBody,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { CloudAccountsService } from './cloud-accounts.service.ts';
import type { BucketsService } from './buckets.service.ts';

/** The account calls of spec 000 §7 / 002 §7 at the spec's paths under /api. */
export function cloudAccountsRoutes(
  service: CloudAccountsService,
  buckets: BucketsService,
  auth: AuthService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['cloud accounts'];
    // Connecting, changing and removing accounts is for Owners and Admins (the services check it); every member
    // may look.
    const member = { preHandler: auth.requireAuth };
    const idParams = z.object({ id: z.uuid() });

    app.get(
      '/account-types/',
      {
        ...member,
        schema: {
          tags,
          response: { 200: z.array(z.object({ id: z.number(), name: z.string(), title: z.string() })) },
        },
      },
      async () => service.accountTypes(),
    );

    for (const path of ['/cloud_accounts/', '/cloudaccount/get_all']) {
      app.get(
        path,
        { ...member, schema: { tags, response: { 200: z.array(cloudAccountView) } } },
        async (request) => service.list(principalOf(request)),
      );
    }

    app.get(
      '/cloud_accounts/access_info',
      {
        ...member,
        schema: {
          tags,
          response: {
            200: z.object({
              userType: z.number(),
              providers: z.array(z.string()),
              wasabi_create: z.object({ enabled: z.boolean(), message: z.string() }),
            }),
          },
        },
      },
      async (request) => service.accessInfo(principalOf(request)),
    );

    app.get(
      '/cloud_accounts/:id/users',
      {
        ...member,
        schema: {
          tags,
          description: 'The members who can use the account, and whether each may also manage it.',
          params: idParams,
          response: { 200: z.array(accountMember) },
        },
      },
      async (request) => service.users(principalOf(request), request.params.id),
    );

    app.get(
      '/storages',
      {
        ...member,
        schema: {
          tags,
          description:
            "Every bucket of the organisation's accounts known to the inventory, with its account.",
          response: { 200: z.array(storageListItem) },
        },
      },
      async (request) => service.storages(principalOf(request)),
    );

    app.get(
      '/storage/:id',
      {
        ...member,
        schema: {
          tags,
          description:
            'One bucket of the inventory; the id is the storage id "{cloudAccountId}/{bucketName}", URL-encoded.',
          params: z.object({ id: text({ max: 400 }) }),
          response: { 200: storageListItem },
        },
      },
      async (request) => service.storage(principalOf(request), request.params.id),
    );

    app.post(
      '/cloudaccount/insert',
      { ...member, schema: { tags, body: insertAccountBody, response: { 201: cloudAccountView } } },
      async (request, reply) =>
        reply.status(201).send(await service.insert(principalOf(request), request.body)),
    );

    app.post(
      '/cloud_accounts/',
      { ...member, schema: { tags, body: legacyCreateAccountBody, response: { 201: cloudAccountView } } },
      async (request, reply) =>
        reply
          .status(201)
          .send(await service.insertLegacyBackblaze(principalOf(request), request.body.cloud_account)),
    );

    app.put(
      '/cloud_accounts/:id',
      {
        ...member,
        schema: { tags, params: idParams, body: updateAccountBody, response: { 200: cloudAccountView } },
      },
      async (request) =>
        service.update(principalOf(request), request.params.id, {
          name: request.body.cloud_account.project_name,
          billingBucket: request.body.cloud_account.billing_bucket,
        }),
    );

    app.put(
      '/cloud_accounts/:id/update_billing_report_bucket',
      {
        ...member,
        schema: { tags, params: idParams, body: billingBucketBody, response: { 200: cloudAccountView } },
      },
      async (request) =>
        service.update(principalOf(request), request.params.id, {
          billingBucket: request.body.billing_bucket,
        }),
    );

    app.delete(
      '/cloudaccount/delete',
      { ...member, schema: { tags, querystring: accountIdQuery, response: { 200: messageAnswer } } },
      async (request) => service.remove(principalOf(request), request.query.id),
    );

    // Not in the spec: the dashboard's Refresh asks for a new inventory of one account.
    app.post(
      '/cloud_accounts/:id/inventory',
      { ...member, schema: { tags, params: idParams, response: { 202: messageAnswer } } },
      async (request, reply) =>
        reply.status(202).send(await service.refreshInventory(principalOf(request), request.params.id)),
    );

    app.post(
      '/cloudaccount/list_buckets',
      { ...member, schema: { tags, body: accountIdBody, response: { 200: z.array(liveBucket) } } },
      async (request) => service.listBuckets(principalOf(request), request.body.id),
    );

    app.post(
      '/wasabi_sub_accounts',
      { ...member, schema: { tags, body: wasabiSubAccountBody, response: { 201: cloudAccountView } } },
      async (request, reply) =>
        reply.status(201).send(await service.createWasabiSubAccount(principalOf(request), request.body)),
    );

    app.get(
      '/cloud_accounts/:id/storages/exists',
      {
        ...member,
        schema: {
          tags,
          params: idParams,
          querystring: bucketExistsQuery,
          response: { 200: bucketExistsAnswer },
        },
      },
      async (request) => buckets.exists(principalOf(request), request.params.id, request.query.bucket_name),
    );

    app.post(
      '/cloud_accounts/:id/storages',
      {
        ...member,
        schema: { tags, params: idParams, body: createBucketBody, response: { 201: createBucketAnswer } },
      },
      async (request, reply) =>
        reply.status(201).send(await buckets.create(principalOf(request), request.params.id, request.body)),
    );
  };
}
