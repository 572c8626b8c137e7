// rclone 1.60 (Debian) as the peer: `rclone sync --checksum src:<bucket> dst:<bucket>`, timed, with the tuning of
// bench/transfer's `rclone copy` (--transfers 64 --checkers 64 --s3-no-check-bucket --s3-no-head --fast-list).
// --checksum compares size and MD5 (the ETag of a single-part object), as Cumulo's diff does, instead of size and
// modification time.
import { timedRclone, type PeerRun } from '../shared/rclone.ts';
import { remotesEnv, RCLONE_TUNING } from '../transfer/rclone-copy.ts';

export function rcloneSync(
  source: { endpoint: string; bucket: string },
  destination: { endpoint: string; bucket: string },
): Promise<PeerRun> {
  return timedRclone(
    ['sync', `src:${source.bucket}`, `dst:${destination.bucket}`, '--checksum', ...RCLONE_TUNING],
    remotesEnv(source.endpoint, destination.endpoint),
  );
}
