import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  HYBRIK_PROFILE_MAX_BYTES,
  hybrikCreateJobAnswer,
  hybrikCreateJobBody,
  hybrikJobs,
  hybrikJobsQuery,
  hybrikProfileAnswer,
  hybrikProfiles,
  hybrikSettings,
  hybrikSettingsBody,
  messageAnswer,
} from '@cumulo/contract';
import { badRequest } from '../../errors.ts';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { HybrikService, ProfileFile } from './hybrik.service.ts';

const profileId = z.object({ id: z.uuid() });
const jobId = z.object({ id: z.uuid() });
/** Room for the multipart envelope around a file just under the limit; a larger file reaches the size message. */
const UPLOAD_BODY_LIMIT = 4 * HYBRIK_PROFILE_MAX_BYTES;

/** The multipart form of "create profile": its `source` field and its `json_file` file, parsed by Node's fetch. */
async function profileForm(
  contentType: string,
  body: Buffer,
): Promise<{ file: ProfileFile | null; source: string | null }> {
  let form: FormData;
  try {
    form = await new Request('http://cumulo.local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
  } catch {
    throw badRequest('The upload is not a multipart form with a json_file field.');
  }
  const file = form.get('json_file');
  const source = form.get('source');
  return {
    file:
      file instanceof File
        ? { fileName: file.name, contentType: file.type, bytes: Buffer.from(await file.arrayBuffer()) }
        : null,
    // Cut by code point, so a cut never leaves half of a surrogate pair; the service refuses NUL and lone halves.
    source: typeof source === 'string' ? Array.from(source).slice(0, 255).join('') : null,
  };
}

/** The Hybrik page's calls (spec 001 §7 "hybrik …") under /api. */
export function hybrikRoutes(service: HybrikService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['hybrik'];
    const member = { preHandler: auth.requireAuth };

    app.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: UPLOAD_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );

    app.get(
      '/hybrik/settings',
      { ...member, schema: { tags, response: { 200: hybrikSettings } } },
      async (request) => service.settings(principalOf(request)),
    );

    app.put(
      '/hybrik/settings',
      {
        ...member,
        schema: {
          tags,
          description: 'Spec 001 §7 "update user hybrik_profiles_bucket".',
          body: hybrikSettingsBody,
          response: { 200: hybrikSettings.extend({ message: z.string() }) },
        },
      },
      async (request) => service.saveSettings(principalOf(request), request.body),
    );

    app.get(
      '/hybrik/profiles',
      { ...member, schema: { tags, description: 'fetchProfiles', response: { 200: hybrikProfiles } } },
      async (request) => service.profiles(principalOf(request)),
    );

    app.post(
      '/hybrik/profiles',
      {
        ...member,
        schema: {
          tags,
          description:
            'Create profile: multipart with `json_file` (JSON under 1 MB) and `source` (its name).',
          response: { 200: hybrikProfileAnswer },
        },
      },
      async (request) => {
        const body = request.body;
        if (!Buffer.isBuffer(body)) throw badRequest('Send the profile as multipart/form-data.');
        const form = await profileForm(request.headers['content-type'] ?? '', body);
        return service.uploadProfile(principalOf(request), form.file, form.source);
      },
    );

    app.delete(
      '/hybrik/profiles/:id',
      { ...member, schema: { tags, params: profileId, response: { 200: messageAnswer } } },
      async (request) => service.deleteProfile(principalOf(request), request.params.id),
    );

    app.get(
      '/hybrik/jobs',
      {
        ...member,
        schema: {
          tags,
          description: 'Fetch jobs by filter.',
          querystring: hybrikJobsQuery,
          response: { 200: hybrikJobs },
        },
      },
      async (request) => service.jobs(principalOf(request), request.query.filter),
    );

    app.post(
      '/hybrik/jobs',
      {
        ...member,
        schema: {
          tags,
          description: 'createJob',
          body: hybrikCreateJobBody,
          response: { 200: hybrikCreateJobAnswer },
        },
      },
      async (request) => service.createJob(principalOf(request), request.body),
    );

    app.post(
      '/hybrik/jobs/:id/cancel',
      { ...member, schema: { tags, params: jobId, response: { 200: messageAnswer } } },
      async (request) => service.cancel(principalOf(request), request.params.id),
    );
  };
}
