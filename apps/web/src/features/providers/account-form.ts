import {
  FILEBASE_ENDPOINT,
  INSERT_CLOUD_TYPE,
  WASABI_DEFAULT_REGION,
  accountFormMessages,
  type InsertAccountBody,
  type ProviderName,
} from '@cumulo/contract';

/** The inputs of the "Set up access" step; each provider shows a subset of them. */
export type AccountField = 'name' | 'accessKey' | 'secretKey' | 'region' | 'serviceUrl' | 'credentialsData';

export type SignatureVersion = 'v4' | 'v2';

export interface AccountFormValues {
  name: string;
  accessKey: string;
  secretKey: string;
  region: string;
  serviceUrl: string;
  credentialsData: string;
  signatureVersion: SignatureVersion;
}

/** The fields each provider's form shows, in screen order; every shown field is required. */
export const PROVIDER_FIELDS: Record<ProviderName, readonly AccountField[]> = {
  aws: ['name', 'accessKey', 'secretKey'],
  wasabi: ['name', 'accessKey', 'secretKey', 'region'],
  backblaze: ['name', 'accessKey', 'secretKey', 'region'],
  filebase: ['name', 'accessKey', 'secretKey'],
  azure: ['name', 'accessKey', 'secretKey'],
  genericS3: ['name', 'serviceUrl', 'accessKey', 'secretKey'],
  google: ['name', 'credentialsData'],
};

/** Spec 000 §5: how many filled fields Save waits for — 3, except 2 for google and 4 for generic S3. */
function saveThreshold(provider: ProviderName): number {
  if (provider === 'google') return 2;
  if (provider === 'genericS3') return 4;
  return 3;
}

export const SIGNATURE_V2_REFUSED = 'Signature V2 is not supported; use V4';

/** A fresh form for a provider (selecting a provider clears the form); wasabi starts in its default region. */
export function emptyAccountForm(provider: ProviderName | null): AccountFormValues {
  return {
    name: '',
    accessKey: '',
    secretKey: '',
    region: provider === 'wasabi' ? WASABI_DEFAULT_REGION : '',
    serviceUrl: '',
    credentialsData: '',
    signatureVersion: 'v4',
  };
}

/** The inline message of an empty field (spec 000 §5); Azure's account name uses the generic one. */
export function emptyFieldMessage(provider: ProviderName, field: AccountField): string {
  switch (field) {
    case 'name':
      return accountFormMessages.name;
    case 'accessKey':
      return provider === 'azure' ? accountFormMessages.field : accountFormMessages.accessKey;
    case 'secretKey':
      return accountFormMessages.secretKey;
    case 'credentialsData':
      return accountFormMessages.serviceAccount;
    case 'region':
    case 'serviceUrl':
      return accountFormMessages.field;
  }
}

export interface AccountSaveState {
  /** Shown fields with a non-blank value. */
  filled: number;
  threshold: number;
  /** Shown (hence required) fields that are still blank. */
  missing: AccountField[];
  /** Why Save stays off although the fields are filled (generic S3 with signature V2). */
  blockedBy: string | null;
  canSave: boolean;
}

/**
 * Spec 000 §5: Save is enabled only when the number of filled fields reaches the provider's threshold and none of
 * the shown required fields is empty. Blank means empty or whitespace only.
 */
export function accountSaveState(provider: ProviderName, values: AccountFormValues): AccountSaveState {
  const shown = PROVIDER_FIELDS[provider];
  const missing = shown.filter((field) => values[field].trim() === '');
  const filled = shown.length - missing.length;
  const threshold = saveThreshold(provider);
  const blockedBy =
    provider === 'genericS3' && values.signatureVersion === 'v2' ? SIGNATURE_V2_REFUSED : null;
  return {
    filled,
    threshold,
    missing,
    blockedBy,
    canSave: filled >= threshold && missing.length === 0 && blockedBy === null,
  };
}

/** The legacy create of a Backblaze account (POST /cloud_accounts/). */
interface LegacyBackblazeBody {
  cloud_account: {
    account_type_id: 6;
    project_name: string;
    info: { access_key: string; secret_key: string; region: string };
  };
}

export type ConnectRequest =
  | { path: '/cloudaccount/insert'; body: InsertAccountBody }
  | { path: '/cloud_accounts/'; body: LegacyBackblazeBody };

/** The call that connects the account: POST /cloudaccount/insert, or the legacy create for Backblaze. */
export function connectRequest(provider: ProviderName, values: AccountFormValues): ConnectRequest {
  const name = values.name.trim();
  const accessKey = values.accessKey.trim();
  const secretKey = values.secretKey.trim();
  switch (provider) {
    case 'aws':
      return {
        path: '/cloudaccount/insert',
        body: { cloudType: INSERT_CLOUD_TYPE.aws, name, accessKey, secretKey },
      };
    case 'wasabi':
      return {
        path: '/cloudaccount/insert',
        body: {
          cloudType: INSERT_CLOUD_TYPE.wasabi,
          name,
          accessKey,
          secretKey,
          region: values.region.trim(),
        },
      };
    case 'azure':
      // Azure: the access key carries the storage account name, the secret key the account key.
      return {
        path: '/cloudaccount/insert',
        body: { cloudType: INSERT_CLOUD_TYPE.azure, name, accessKey, secretKey },
      };
    case 'genericS3':
      return {
        path: '/cloudaccount/insert',
        body: {
          cloudType: INSERT_CLOUD_TYPE.genericS3OrFilebase,
          name,
          accessKey,
          secretKey,
          serviceUrl: values.serviceUrl.trim(),
          signatureVersion: values.signatureVersion,
        },
      };
    case 'filebase':
      return {
        path: '/cloudaccount/insert',
        body: {
          cloudType: INSERT_CLOUD_TYPE.genericS3OrFilebase,
          name,
          accessKey,
          secretKey,
          serviceUrl: FILEBASE_ENDPOINT,
        },
      };
    case 'google':
      return {
        path: '/cloudaccount/insert',
        body: { cloudType: INSERT_CLOUD_TYPE.google, name, credentialsData: values.credentialsData.trim() },
      };
    case 'backblaze':
      return {
        path: '/cloud_accounts/',
        body: {
          cloud_account: {
            account_type_id: 6,
            project_name: name,
            info: { access_key: accessKey, secret_key: secretKey, region: values.region.trim() },
          },
        },
      };
  }
}
