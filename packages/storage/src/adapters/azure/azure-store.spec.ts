import { RestError } from '@azure/storage-blob';
import { describe, expect, it } from 'vitest';
import { decodeMetadataName, encodeMetadataName, toStorageError } from './azure-store.ts';

/** Azure accepts only C# identifiers as metadata names. */
const CSHARP_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

describe('Azure metadata names', () => {
  it.each(['cumulo-sha256', 'content-language', 'x.y z', 'größe', '1st', 'a_x2d_b', 'plain_name'])(
    'stores %s as a valid Azure name and reads it back unchanged',
    (name) => {
      const encoded = encodeMetadataName(name);
      expect(encoded).toMatch(CSHARP_IDENTIFIER);
      expect(decodeMetadataName(encoded)).toBe(name);
    },
  );

  it('reads names written by other tools as they are', () => {
    expect(decodeMetadataName('my_key')).toBe('my_key');
    expect(encodeMetadataName('my_key')).toBe('my_key');
  });
});

describe('Azure errors as StorageError', () => {
  const serviceError = (statusCode: number, code: string, message: string) =>
    new RestError(`${message}\nRequestId:0d4c\nTime:2026-01-01T00:00:00.000Z`, { statusCode, code });

  it.each([
    [403, 'AuthenticationFailed', 'Server failed to authenticate the request.', 'InvalidCredentials'],
    [403, 'AuthorizationPermissionMismatch', 'This request is not authorized.', 'AccessDenied'],
    [404, 'ContainerNotFound', 'The specified container does not exist.', 'BucketNotFound'],
    [404, 'BlobNotFound', 'The specified blob does not exist.', 'ObjectNotFound'],
    [409, 'ContainerAlreadyExists', 'The specified container already exists.', 'BucketAlreadyExists'],
    [
      400,
      'InvalidResourceName',
      'The specifed resource name contains invalid characters.',
      'InvalidBucketName',
    ],
    [503, 'ServerBusy', 'The server is busy.', 'Throttled'],
  ] as const)('maps %i %s to %s with the first line of the message', (status, code, message, expected) => {
    const error = toStorageError(serviceError(status, code, message));
    expect(error.code).toBe(expected);
    expect(error.status).toBe(status);
    expect(error.provider).toBe('azure');
    expect(error.message).toBe(message);
  });

  it('maps a refused connection to Network', () => {
    const error = toStorageError(new RestError('connect ECONNREFUSED 127.0.0.1:9', { code: 'ECONNREFUSED' }));
    expect(error.code).toBe('Network');
    expect(error.status).toBeNull();
    expect(error.message).toBe('The provider could not be reached: it refused the connection');
  });
});
