import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createFolderAnswer,
  createFolderBody,
  deleteObjectsAnswer,
  deleteObjectsBody,
  downloadUrlAnswer,
  downloadUrlQuery,
  listObjectsAnswer,
  listObjectsBody,
  listingAnswer,
  listingQuery,
  searchAnswer,
  searchBody,
  storageDownloadBody,
  text,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { ObjectsService } from './objects.service.ts';

/** The browsing and object calls of spec 001 §7 at the spec's paths under /api. */
export function objectsRoutes(service: ObjectsService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['objects'];
    // Every member browses, downloads, searches and creates folders (a folder is an empty upload, and Users upload
    // through /S3Direct); deleting data is for Owners and Admins, like removing accounts (the service checks it).
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/storage/:id/content',
      {
        ...member,
        schema: {
          tags,
          description:
            'One page of a folder; the id is the storage id "{cloudAccountId}/{bucketName}", URL-encoded.',
          params: z.object({ id: text({ max: 400 }) }),
          querystring: listingQuery,
          response: { 200: listingAnswer },
        },
      },
      async (request) => service.list(principalOf(request), request.params.id, request.query),
    );

    app.post(
      '/cloudaccount/list_objects',
      { ...member, schema: { tags, body: listObjectsBody, response: { 200: listObjectsAnswer } } },
      async (request) => service.listObjects(principalOf(request), request.body),
    );

    app.post(
      '/storage/:id/content/download',
      {
        ...member,
        schema: {
          tags,
          description:
            'Signed download links of the given keys of the storage "{cloudAccountId}/{bucketName}".',
          params: z.object({ id: text({ max: 400 }) }),
          body: storageDownloadBody,
          response: { 200: downloadUrlAnswer },
        },
      },
      async (request) =>
        service.storageDownloadUrls(principalOf(request), request.params.id, request.body.paths),
    );

    app.delete(
      '/transfers/delete_object',
      { ...member, schema: { tags, body: deleteObjectsBody, response: { 200: deleteObjectsAnswer } } },
      async (request) => service.deleteObjects(principalOf(request), request.body),
    );

    app.get(
      '/transfers/download_url',
      { ...member, schema: { tags, querystring: downloadUrlQuery, response: { 200: downloadUrlAnswer } } },
      async (request) => service.downloadUrls(principalOf(request), request.query),
    );

    app.put(
      '/transfers/create_folder',
      { ...member, schema: { tags, body: createFolderBody, response: { 200: createFolderAnswer } } },
      async (request) => service.createFolder(principalOf(request), request.body),
    );

    app.post(
      '/search',
      { ...member, schema: { tags, body: searchBody, response: { 200: searchAnswer } } },
      async (request) => service.search(principalOf(request), request.body),
    );
  };
}
