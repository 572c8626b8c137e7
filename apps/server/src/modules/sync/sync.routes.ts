import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  messageAnswer,
  saveReplicationBody,
  saveSyncBody,
  syncActivateBody,
  syncCycleList,
  syncCycleStarted,
  syncDecideBody,
  syncIdQuery,
  syncJobList,
  syncJobSaved,
  syncMessages,
  syncOptionsBody,
  syncTriggerQuery,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { SyncJobKind } from './sync-jobs.repo.ts';
import type { SyncJobPayload, SyncService } from './sync.service.ts';

const SAVE_SYNC_KEYS = ['source_cloud', 'source_bucket', 'destination_cloud', 'destination_bucket'];

/**
 * saveSync or saveSyncWasabi, told apart by their keys before validating: as a plain union, a payload failing both
 * shapes would answer 'Invalid input' instead of the failing field's words (a frequency of 4, say).
 */
const syncInsertPayload = z.unknown().transform((body, ctx): SyncJobPayload => {
  const isSaveSync = typeof body === 'object' && body !== null && SAVE_SYNC_KEYS.some((key) => key in body);
  const parsed = (isSaveSync ? saveSyncBody : saveReplicationBody).safeParse(body);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: body });
  }
  return z.NEVER;
});

const kindQuery = z.object({ kind: z.enum(['sync', 'replication']).optional() });

/** The Sync and Replication calls of spec 000 §7 / 001 §7 at the spec's paths (and their legacy names) under /api. */
export function syncRoutes(service: SyncService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['sync'];
    // Who may do what is the service's (authz/policy.ts), so each refusal says who may.
    const member = { preHandler: auth.requireAuth };

    // The legacy list calls answer their own screen's jobs unless a kind is asked for.
    const lists: Array<[string, SyncJobKind | undefined]> = [
      ['/sync/get_jobs', undefined],
      ['/sync/ListSyncInfo', 'sync'],
      ['/sync/ListSyncInfoWasabi', 'replication'],
    ];
    for (const [url, kind] of lists) {
      app.get(
        url,
        { ...member, schema: { tags, querystring: kindQuery, response: { 200: syncJobList } } },
        async (request) => service.list(principalOf(request), request.query.kind ?? kind),
      );
    }

    for (const url of ['/sync/insert', '/sync/AddSyncInfo', '/sync/AddSyncInfoWasabi']) {
      app.post(
        url,
        {
          ...member,
          schema: {
            tags,
            description:
              'Creates a job from a saveSync (kind "sync") or saveSyncWasabi (kind "replication") payload.',
            body: syncInsertPayload,
            response: { 200: syncJobSaved },
          },
        },
        async (request) => service.insert(principalOf(request), request.body),
      );
    }

    app.post(
      '/sync/activate',
      { ...member, schema: { tags, body: syncActivateBody, response: { 200: messageAnswer } } },
      async (request) => service.activate(principalOf(request), request.body.id, request.body.active),
    );

    for (const url of ['/sync/delete', '/sync/DeleteSyncInfo', '/sync/DeleteSyncInfoWasabi']) {
      app.delete(
        url,
        {
          ...member,
          schema: {
            tags,
            description: syncMessages.deleteNote,
            querystring: syncIdQuery,
            response: { 200: messageAnswer },
          },
        },
        async (request) => service.remove(principalOf(request), request.query.id),
      );
    }

    app.post(
      '/sync/TriggerWasabiSync',
      { ...member, schema: { tags, querystring: syncTriggerQuery, response: { 200: syncCycleStarted } } },
      async (request) => service.runNow(principalOf(request), request.query.syncInfoId),
    );

    app.post(
      '/sync/dry_run',
      { ...member, schema: { tags, querystring: syncIdQuery, response: { 200: syncCycleStarted } } },
      async (request) => service.dryRun(principalOf(request), request.query.id),
    );

    app.get(
      '/sync/cycles',
      { ...member, schema: { tags, querystring: syncIdQuery, response: { 200: syncCycleList } } },
      async (request) => service.cycles(principalOf(request), request.query.id),
    );

    app.post(
      '/sync/decide',
      { ...member, schema: { tags, body: syncDecideBody, response: { 200: syncCycleStarted } } },
      async (request) => service.decide(principalOf(request), request.body.cycleId, request.body.approve),
    );

    app.put(
      '/sync/options',
      { ...member, schema: { tags, body: syncOptionsBody, response: { 200: syncJobSaved } } },
      async (request) => service.setOptions(principalOf(request), request.body),
    );
  };
}
