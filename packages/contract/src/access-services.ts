import { z } from 'zod';

/**
 * The service ACL catalogue and the caller's effective ACL of GET /users/_me: apart from the rest of access.ts so
 * the sign-in page's first load, which parses the profile, carries only this (access.ts re-exports it).
 */

/** The product's areas, each with the title the screens show. */
export const ACCESS_SERVICES = {
  transfers: 'Transfers',
  sync: 'Sync and replication',
  uploads: 'Uploads',
  sharing: 'Sharing',
  analytics: 'Analytics',
  finance: 'Finance',
  encoding: 'Encoding',
  media_search: 'Media search',
  ftx: 'ftX',
} as const;
export type AccessService = keyof typeof ACCESS_SERVICES;
export const ACCESS_SERVICE_NAMES = Object.keys(ACCESS_SERVICES) as AccessService[];

/** A permission value meaning "no limit" (spec 002 §3, §5). */
export const UNLIMITED = -1;

/** The permissions the server enforces, per service; only these exist. Values are bytes. */
export const ACCESS_PERMISSIONS = {
  max_transfer_size: { service: 'transfers', title: 'Maximum transfer size', unit: 'bytes' },
  max_upload_size: { service: 'uploads', title: 'Maximum upload size', unit: 'bytes' },
} as const satisfies Record<string, { service: AccessService; title: string; unit: 'bytes' }>;
export type AccessAttribute = keyof typeof ACCESS_PERMISSIONS;
export const ACCESS_ATTRIBUTES = Object.keys(ACCESS_PERMISSIONS) as AccessAttribute[];

export const accessService = z.enum(ACCESS_SERVICE_NAMES as [AccessService, ...AccessService[]]);
export const accessAttribute = z.enum(ACCESS_ATTRIBUTES as [AccessAttribute, ...AccessAttribute[]]);

/** The caller's effective ACL in GET /users/_me (`acl.services`, `acl.permissions`). */
export const effectiveAccess = z.object({
  services: z.record(accessService, z.boolean()),
  permissions: z.record(accessAttribute, z.number()),
});
