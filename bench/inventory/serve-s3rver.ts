// Child process: serves one s3rver directory on a free port until stdin closes. Started by s3rver-process.ts
// with --openssl-legacy-provider (s3rver's continuation tokens use DES).
import S3rver from 's3rver';
import { addMultipartCalls } from '@cumulo/storage/testing';

const directory = process.argv[2];
if (!directory) throw new Error('usage: serve-s3rver.ts DIRECTORY');
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
// The multipart calls s3rver lacks (ListParts, AbortMultipartUpload, …), as in the tests.
addMultipartCalls(server);
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0));
});
