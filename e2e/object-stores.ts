// Run by global-setup.ts in its own process (s3rver needs --openssl-legacy-provider): starts s3rver and Azurite,
// prints their endpoints as one JSON line, and stops them when its stdin closes.
import { startAzurite, startS3rver } from '@cumulo/storage/testing';

const [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
process.stdout.write(`${JSON.stringify({ s3rver: s3rver.endpoint, azurite: azurite.endpoint })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void Promise.all([s3rver.stop(), azurite.stop()]).then(() => process.exit(0));
});
