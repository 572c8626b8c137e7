import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addMetadataBody,
  mediaInfo,
  mediaInfoQuery,
  mediaPlayback,
  metadataEntry,
  metadataQuery,
  text,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { MediaService } from './media.service.ts';

/** Media info, playback and custom metadata (issue 26 point 3; spec 001 §7 "metadata add/delete/all") under /api. */
export function mediaRoutes(service: MediaService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['media'];
    // Every member sees what a file is and plays it, as they browse and download it; adding and deleting custom
    // metadata is `metadata.manage`, checked by the service.
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/media/info',
      {
        ...member,
        schema: {
          tags,
          description:
            'ffprobe of the object (kept per object version) with its store metadata and custom metadata; 400 when it is not media.',
          querystring: mediaInfoQuery,
          response: { 200: mediaInfo },
        },
      },
      async (request) => service.info(principalOf(request), request.query),
    );

    app.get(
      '/media/play',
      { ...member, schema: { tags, querystring: mediaInfoQuery, response: { 200: mediaPlayback } } },
      async (request) => service.play(principalOf(request), request.query),
    );

    // Public: hls.js fetches playlists without our Authorization header, so the signed token in the path is the
    // capability (playback-token.ts); segments are signed GETs of the store, never served through here.
    app.get(
      '/media/hls/:token/*',
      {
        schema: {
          tags,
          security: [],
          description:
            'An HLS playlist of the folder the token grants, its variants pointing back here and its segments signed; 404 outside the folder, 403 once expired.',
          params: z.object({ token: text({ max: 4096 }), '*': text({ max: 1024 }) }),
        },
      },
      async (request, reply) => {
        const playlist = await service.hlsPlaylist(request.params.token, request.params['*']);
        return reply.type('application/vnd.apple.mpegurl').header('cache-control', 'no-store').send(playlist);
      },
    );

    app.get(
      '/metadata/all',
      { ...member, schema: { tags, querystring: metadataQuery, response: { 200: z.array(metadataEntry) } } },
      async (request) => service.metadata(principalOf(request), request.query),
    );

    app.post(
      '/metadata/add',
      { ...member, schema: { tags, body: addMetadataBody, response: { 201: metadataEntry } } },
      async (request, reply) =>
        reply.code(201).send(await service.addMetadata(principalOf(request), request.body)),
    );

    app.delete(
      '/metadata/:id',
      {
        ...member,
        schema: { tags, params: z.object({ id: z.uuid() }), response: { 200: metadataEntry } },
      },
      async (request) => service.deleteMetadata(principalOf(request), request.params.id),
    );
  };
}
