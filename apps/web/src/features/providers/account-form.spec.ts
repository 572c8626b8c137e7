import { describe, expect, it } from 'vitest';
import { FILEBASE_ENDPOINT, accountFormMessages } from '@cumulo/contract';
import {
  SIGNATURE_V2_REFUSED,
  accountSaveState,
  connectRequest,
  emptyAccountForm,
  emptyFieldMessage,
  type AccountFormValues,
} from './account-form.ts';

function form(
  overrides: Partial<AccountFormValues>,
  provider: Parameters<typeof emptyAccountForm>[0] = 'aws',
) {
  return { ...emptyAccountForm(provider), ...overrides };
}

describe('accountSaveState (spec 000 §5 save counting rule)', () => {
  it('aws waits for 3 filled fields', () => {
    expect(accountSaveState('aws', form({ name: 'Prod', accessKey: 'AKIA' }))).toMatchObject({
      filled: 2,
      threshold: 3,
      missing: ['secretKey'],
      canSave: false,
    });
    expect(
      accountSaveState('aws', form({ name: 'Prod', accessKey: 'AKIA', secretKey: 's3cr3t' })),
    ).toMatchObject({ filled: 3, missing: [], canSave: true });
  });

  it('counts whitespace-only values as empty', () => {
    const state = accountSaveState('aws', form({ name: '   ', accessKey: 'AKIA', secretKey: 's' }));
    expect(state.filled).toBe(2);
    expect(state.missing).toEqual(['name']);
    expect(state.canSave).toBe(false);
  });

  it('google needs only the name and the service-account key (2)', () => {
    expect(accountSaveState('google', form({ name: 'GCS' }, 'google')).canSave).toBe(false);
    expect(
      accountSaveState(
        'google',
        form({ name: 'GCS', credentialsData: '{"type":"service_account"}' }, 'google'),
      ),
    ).toMatchObject({ filled: 2, threshold: 2, canSave: true });
  });

  it('generic S3 needs 4: name, service URL, access key and secret key', () => {
    const three = form({ name: 'Minio', accessKey: 'a', secretKey: 'b' }, 'genericS3');
    expect(accountSaveState('genericS3', three)).toMatchObject({ filled: 3, threshold: 4, canSave: false });
    expect(accountSaveState('genericS3', { ...three, serviceUrl: 'https://s3.example.com' }).canSave).toBe(
      true,
    );
  });

  it('generic S3 with signature V2 stays disabled and says why', () => {
    const values = form(
      {
        name: 'Minio',
        accessKey: 'a',
        secretKey: 'b',
        serviceUrl: 'https://s3.example.com',
        signatureVersion: 'v2',
      },
      'genericS3',
    );
    expect(accountSaveState('genericS3', values)).toMatchObject({
      filled: 4,
      blockedBy: SIGNATURE_V2_REFUSED,
      canSave: false,
    });
  });

  it('wasabi starts with its default region filled; clearing the region blocks Save', () => {
    const values = form({ name: 'Archive', accessKey: 'a', secretKey: 'b' }, 'wasabi');
    expect(values.region).toBe('us-east-1');
    expect(accountSaveState('wasabi', values)).toMatchObject({ filled: 4, canSave: true });
    expect(accountSaveState('wasabi', { ...values, region: '' })).toMatchObject({
      filled: 3,
      missing: ['region'],
      canSave: false,
    });
  });

  it('backblaze reaches the count of 3 without a region but still needs it (no shown field may be empty)', () => {
    const values = form({ name: 'B2', accessKey: 'a', secretKey: 'b' }, 'backblaze');
    expect(accountSaveState('backblaze', values)).toMatchObject({
      filled: 3,
      missing: ['region'],
      canSave: false,
    });
    expect(accountSaveState('backblaze', { ...values, region: 'us-west-004' }).canSave).toBe(true);
  });
});

describe('emptyFieldMessage', () => {
  it('uses the spec texts, with the generic one for the Azure account name', () => {
    expect(emptyFieldMessage('aws', 'name')).toBe(accountFormMessages.name);
    expect(emptyFieldMessage('aws', 'accessKey')).toBe('Access Key is required.');
    expect(emptyFieldMessage('azure', 'accessKey')).toBe('Field is required.');
    expect(emptyFieldMessage('azure', 'secretKey')).toBe('Secret Key is required.');
    expect(emptyFieldMessage('google', 'credentialsData')).toBe('Service Accounts Key is required.');
    expect(emptyFieldMessage('genericS3', 'serviceUrl')).toBe('Field is required.');
  });
});

describe('connectRequest (cloudType numbering of the insert call)', () => {
  const filled = form({
    name: ' Media ',
    accessKey: 'AK',
    secretKey: 'SK',
    region: 'us-west-004',
    serviceUrl: 'https://minio.local',
    credentialsData: '{"a":1}',
  });

  it('maps each provider to its call and body', () => {
    expect(connectRequest('aws', filled)).toEqual({
      path: '/cloudaccount/insert',
      body: { cloudType: 1, name: 'Media', accessKey: 'AK', secretKey: 'SK' },
    });
    expect(connectRequest('wasabi', filled).body).toMatchObject({ cloudType: 2, region: 'us-west-004' });
    expect(connectRequest('azure', filled).body).toMatchObject({
      cloudType: 4,
      accessKey: 'AK',
      secretKey: 'SK',
    });
    expect(connectRequest('genericS3', filled).body).toMatchObject({
      cloudType: 8,
      serviceUrl: 'https://minio.local',
      signatureVersion: 'v4',
    });
    expect(connectRequest('filebase', filled).body).toMatchObject({
      cloudType: 8,
      serviceUrl: FILEBASE_ENDPOINT,
    });
    expect(connectRequest('google', filled).body).toEqual({
      cloudType: 16,
      name: 'Media',
      credentialsData: '{"a":1}',
    });
    expect(connectRequest('backblaze', filled)).toEqual({
      path: '/cloud_accounts/',
      body: {
        cloud_account: {
          account_type_id: 6,
          project_name: 'Media',
          info: { access_key: 'AK', secret_key: 'SK', region: 'us-west-004' },
        },
      },
    });
  });
});
