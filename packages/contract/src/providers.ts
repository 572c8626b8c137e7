/** Provider names as routes and the API use them (spec 000 §2). */
export const PROVIDER_NAMES = [
  'aws',
  'wasabi',
  'azure',
  'backblaze',
  'genericS3',
  'google',
  'filebase',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Bit flags of `cloudType` in the account list (spec 000 §3). */
export const ACCOUNT_LIST_CLOUD_TYPE: Record<ProviderName, number> = {
  aws: 1,
  wasabi: 2,
  azure: 4,
  backblaze: 8,
  genericS3: 16,
  filebase: 32,
  // The account list numbering has no Google flag; 64 is the next free bit.
  google: 64,
};

/**
 * `cloudType` of the account-creation call (spec 000 §7): a different numbering, where 8 covers both generic
 * S3 and filebase (told apart by the filebase service URL).
 */
export const INSERT_CLOUD_TYPE = { aws: 1, wasabi: 2, azure: 4, genericS3OrFilebase: 8, google: 16 } as const;

/** The fixed endpoint that identifies a filebase account (spec 000 §1). */
export const FILEBASE_ENDPOINT = 'https://s3.filebase.com';

/** Account types (GET /account-types/); backblaze's id 6 is the one the spec's legacy create names. */
export const ACCOUNT_TYPES: ReadonlyArray<{ id: number; name: ProviderName; title: string }> = [
  { id: 1, name: 'aws', title: 'Amazon S3' },
  { id: 2, name: 'wasabi', title: 'Wasabi' },
  { id: 3, name: 'azure', title: 'Azure Blob Storage' },
  { id: 4, name: 'google', title: 'Google Cloud Storage' },
  { id: 5, name: 'genericS3', title: 'S3-compatible storage' },
  { id: 6, name: 'backblaze', title: 'Backblaze B2' },
  { id: 7, name: 'filebase', title: 'Filebase' },
];

/** Height of a provider's mark in px (spec 002 §9). */
export const PROVIDER_ICON_HEIGHT_PX = 38;

/** Providers a user may add: userType 4 all of them, every other type only wasabi (spec 000 §6). */
export function providersAllowedFor(userType: number): ProviderName[] {
  return userType === 4 ? [...PROVIDER_NAMES] : ['wasabi'];
}

/** Create-bucket is offered only for aws and wasabi accounts (spec 000 §2, §6). */
export const BUCKET_CREATION_PROVIDERS: readonly ProviderName[] = ['aws', 'wasabi'];

/** Providers spoken to through the S3 API (Signature V4): every one but azure and google. */
export function isS3Family(provider: ProviderName): boolean {
  return provider !== 'azure' && provider !== 'google';
}

/** The 17 aws regions of spec 000 §9. */
export const AWS_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'ap-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'sa-east-1',
  'cn-north-1',
  'cn-northwest-1',
] as const;

export const WASABI_REGIONS = ['us-east-1', 'us-west-1', 'eu-central-1'] as const;
export const WASABI_DEFAULT_REGION = 'us-east-1';
