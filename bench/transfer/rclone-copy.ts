// rclone 1.60 (Debian) as the peer: `rclone copy` between two s3rver remotes, timed, with its peak RSS from
// GNU time. Tuned as the issue says: --transfers 64 --checkers 64 --s3-no-check-bucket --s3-no-head, plus
// --fast-list (see below).
import { rcloneRemotesEnv, timedRclone, type PeerRun } from '../shared/rclone.ts';

export type { PeerRun };

/**
 * The tuned rclone of the issue (`--transfers 64 --checkers 64 --s3-no-check-bucket --s3-no-head`), plus
 * `--fast-list`: rclone 1.60's directory walk finds nothing at the root of an s3rver bucket (it copies "nothing to
 * transfer"); --fast-list lists the bucket in one recursive listing instead, which is also rclone's advice for S3
 * when the listing fits in memory, and the fastest setting for it.
 */
export const RCLONE_TUNING = [
  '--transfers',
  '64',
  '--checkers',
  '64',
  '--s3-no-check-bucket',
  '--s3-no-head',
  '--fast-list',
];

/** rclone's remotes `src:` and `dst:`. */
export function remotesEnv(source: string, destination: string): NodeJS.ProcessEnv {
  return rcloneRemotesEnv({ SRC: source, DST: destination });
}

/**
 * `rclone copy src:<bucket> dst:<bucket>`; with `sameRemote` both ends are `src:` so rclone may copy server-side.
 */
export function rcloneCopy(
  source: { endpoint: string; bucket: string },
  destination: { endpoint: string; bucket: string },
  options: { sameRemote?: boolean } = {},
): Promise<PeerRun> {
  const target = options.sameRemote ? `src:${destination.bucket}` : `dst:${destination.bucket}`;
  return timedRclone(
    ['copy', `src:${source.bucket}`, target, ...RCLONE_TUNING],
    remotesEnv(source.endpoint, destination.endpoint),
  );
}
