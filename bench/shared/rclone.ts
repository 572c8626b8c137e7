import { S3RVER_KEY } from '@cumulo/storage/testing';

/**
 * The environment of an rclone run against an s3rver at `endpoint` as the remote `s3rver:`. rclone reads its
 * remote from RCLONE_CONFIG_* variables only; no config file is read or written.
 */
export function rcloneEnv(endpoint: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RCLONE_CONFIG_S3RVER_TYPE: 's3',
    RCLONE_CONFIG_S3RVER_PROVIDER: 'Other',
    RCLONE_CONFIG_S3RVER_ENDPOINT: endpoint,
    RCLONE_CONFIG_S3RVER_REGION: 'us-east-1',
    RCLONE_CONFIG_S3RVER_ACCESS_KEY_ID: S3RVER_KEY,
    RCLONE_CONFIG_S3RVER_SECRET_ACCESS_KEY: S3RVER_KEY,
    RCLONE_CONFIG_S3RVER_FORCE_PATH_STYLE: 'true',
  };
  // TESTING.md: rclone must run without AWS_CA_BUNDLE here (`env -u AWS_CA_BUNDLE rclone …`).
  delete env.AWS_CA_BUNDLE;
  return env;
}
