import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeFileSystemsCommand, EFSClient } from '@aws-sdk/client-efs';
import { DescribeDBInstancesCommand, RDSClient } from '@aws-sdk/client-rds';
import type { InstanceKind } from '@cumulo/contract';
import type { StoreConfig } from '@cumulo/storage';
import type { CloudAccountRow } from '../cloud-accounts/cloud-accounts.repo.ts';

/** What the provider's own API says of a file system (EFS DescribeFileSystems). */
interface ApiFileSystem {
  name: string | null;
  sizeInBytes: number;
  mountTargets: number;
  creationTime: string | null;
}

/**
 * The provider's own view of an account's resources, where its keys allow it (issue 24: running/stopped from the
 * EC2 and EFS APIs, else from the report). Each method answers one region; whatever fails (AccessDenied,
 * UnauthorizedOperation, a timeout) throws, and the caller falls back to the report.
 */
export interface ResourceApi {
  /** Whether each instance (EC2 id, RDS db identifier) is running; ids the API does not know are left out. */
  instanceStates(kind: InstanceKind, region: string, ids: string[]): Promise<Map<string, boolean>>;
  /** The region's file systems by id (`fs-…`). */
  fileSystems(region: string): Promise<Map<string, ApiFileSystem>>;
}

/** Builds the API of an account, or null when it has none Cumulo may call. */
export type ResourceApis = (account: CloudAccountRow, config: StoreConfig) => ResourceApi | null;

/**
 * An AWS region code as the report writes it: with only such names the SDK's hosts stay AWS's public
 * `<service>.<region>.amazonaws.com` (the report is tenant data; nothing else from it may name a host).
 */
const AWS_REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;
/** An API that has not answered in this long is given up on: the report answers instead. */
const API_TIMEOUT_MS = 5_000;
/** DescribeInstances takes at most 1 000 ids per call (its filter values are bounded the same way). */
const EC2_IDS_PER_CALL = 1000;
/** EC2 states that are not "stopped" for the screens: an instance on its way up counts as running. */
const EC2_RUNNING = new Set(['pending', 'running']);
/** RDS statuses of an instance that serves (or is about to). */
const RDS_RUNNING = new Set([
  'available',
  'backing-up',
  'modifying',
  'rebooting',
  'starting',
  'storage-optimization',
]);

/**
 * The real APIs, for real AWS accounts only: an account with a custom endpoint (a private deployment, s3rver,
 * any S3-compatible service) is never sent anywhere else (ARCHITECTURE "Outbound address policy"), and the other
 * providers have no EC2, RDS or EFS.
 */
export const awsResourceApis: ResourceApis = (account, config) => {
  if (account.provider !== 'aws' || config.provider !== 'aws' || config.endpoint !== undefined) return null;
  const credentials = { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey };
  const options = (region: string) => {
    if (!AWS_REGION.test(region)) throw new Error(`not an AWS region: ${region}`);
    return { region, credentials, maxAttempts: 1 };
  };
  const timeout = () => ({ abortSignal: AbortSignal.timeout(API_TIMEOUT_MS) });
  return {
    async instanceStates(kind, region, ids) {
      const states = new Map<string, boolean>();
      if (ids.length === 0) return states;
      if (kind === 'ec2') {
        const client = new EC2Client(options(region));
        try {
          for (let i = 0; i < ids.length; i += EC2_IDS_PER_CALL) {
            const chunk = ids.slice(i, i + EC2_IDS_PER_CALL);
            let token: string | undefined;
            do {
              const page = await client.send(
                new DescribeInstancesCommand({
                  Filters: [{ Name: 'instance-id', Values: chunk }],
                  NextToken: token,
                }),
                timeout(),
              );
              for (const reservation of page.Reservations ?? [])
                for (const instance of reservation.Instances ?? [])
                  if (instance.InstanceId)
                    states.set(instance.InstanceId, EC2_RUNNING.has(instance.State?.Name ?? ''));
              token = page.NextToken;
            } while (token);
          }
        } finally {
          client.destroy();
        }
        return states;
      }
      const client = new RDSClient(options(region));
      try {
        let marker: string | undefined;
        do {
          const page = await client.send(new DescribeDBInstancesCommand({ Marker: marker }), timeout());
          for (const db of page.DBInstances ?? [])
            if (db.DBInstanceIdentifier && ids.includes(db.DBInstanceIdentifier))
              states.set(db.DBInstanceIdentifier, RDS_RUNNING.has(db.DBInstanceStatus ?? ''));
          marker = page.Marker;
        } while (marker);
      } finally {
        client.destroy();
      }
      return states;
    },
    async fileSystems(region) {
      const client = new EFSClient(options(region));
      const systems = new Map<string, ApiFileSystem>();
      try {
        let marker: string | undefined;
        do {
          const page = await client.send(new DescribeFileSystemsCommand({ Marker: marker }), timeout());
          for (const fs of page.FileSystems ?? []) {
            if (!fs.FileSystemId) continue;
            systems.set(fs.FileSystemId, {
              name: fs.Name ?? fs.Tags?.find((tag) => tag.Key === 'Name')?.Value ?? null,
              sizeInBytes: fs.SizeInBytes?.Value ?? 0,
              mountTargets: fs.NumberOfMountTargets ?? 0,
              creationTime: fs.CreationTime?.toISOString() ?? null,
            });
          }
          marker = page.NextMarker;
        } while (marker);
      } finally {
        client.destroy();
      }
      return systems;
    },
  };
};
