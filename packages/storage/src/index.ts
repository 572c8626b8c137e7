/**
 * The ObjectStore contract and its provider adapters live here (the cloud-accounts issue builds them).
 * Until then the package exports the provider names the rest of the code already refers to.
 */
export const PROVIDERS = ['aws', 'wasabi', 'azure', 'backblaze', 'genericS3', 'google', 'filebase'] as const;
export type Provider = (typeof PROVIDERS)[number];
