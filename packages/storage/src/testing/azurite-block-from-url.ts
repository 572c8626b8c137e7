/**
 * Gives the test Azure server Put Block From URL, which Azurite 3.35 answers with 501 NotImplemented. The transfer
 * engine copies parts inside one Azure account with it (`parts.copyPart`); without it that path could only be shown
 * against a mock, never against a server that really holds the blocks.
 *
 * Done the way Azurite itself verifies the source of an asynchronous Copy Blob (BlobHandler.validateCopySource):
 * by an HTTP request to the source URL on the same Azurite instance, so the source's SAS, existence and range are
 * checked by Azurite's own handlers. The bytes that come back are then staged by Azurite's own Put Block, so the
 * block is stored, listed and committed exactly like a block sent in the request body. Not covered: the
 * x-ms-source-content-md5 / crc64 and x-ms-source-if-* conditions (Cumulo does not send them).
 */

import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

interface AzuriteContext {
  contextId?: string;
  request?: { getHeader(name: string): string | undefined };
}

interface StageBlockFromUrlOptions {
  sourceRange?: string;
  leaseAccessConditions?: unknown;
  requestId?: string;
}

interface BlockBlobHandler {
  stageBlock(
    blockId: string,
    contentLength: number,
    body: NodeJS.ReadableStream,
    options: { leaseAccessConditions?: unknown; requestId?: string },
    context: AzuriteContext,
  ): Promise<unknown>;
  stageBlockFromURL(
    blockId: string,
    contentLength: number,
    sourceUrl: string,
    options: StageBlockFromUrlOptions,
    context: AzuriteContext,
  ): Promise<unknown>;
}

// Azurite ships CommonJS without type declarations; its classes are loaded by path, as in servers.ts.
const require = createRequire(import.meta.url);
const { default: BlockBlobHandlerClass } = require('azurite/dist/src/blob/handlers/BlockBlobHandler.js') as {
  default: { prototype: BlockBlobHandler };
};
const { default: StorageErrorFactory } = require('azurite/dist/src/blob/errors/StorageErrorFactory.js') as {
  default: {
    getCannotVerifyCopySource(contextId: string | undefined, status: number, message: string): Error;
  };
};

const PATCHED = Symbol.for('cumulo.azurite.stageBlockFromURL');

/** The first line of an Azure XML error's <Message>, or a fallback. */
function messageOf(xml: string, fallback: string): string {
  const match = /<Message>([^<]*)<\/Message>/.exec(xml);
  return match?.[1]?.split('\n')[0]?.trim() || fallback;
}

/** Installs Put Block From URL on every Azurite blob server of this process (once; later calls do nothing). */
export function addPutBlockFromUrl(): void {
  const prototype = BlockBlobHandlerClass.prototype as BlockBlobHandler & { [PATCHED]?: true };
  if (prototype[PATCHED]) return;
  prototype[PATCHED] = true;
  prototype.stageBlockFromURL = async function stageBlockFromURL(
    blockId,
    _contentLength,
    sourceUrl,
    options,
    context,
  ) {
    const source = new URL(sourceUrl);
    // Like Azurite's own copy: only a source on this same instance can be reached (and trusted) here.
    if (source.host !== context.request?.getHeader('host')) {
      throw StorageErrorFactory.getCannotVerifyCopySource(
        context.contextId,
        404,
        'The specified resource does not exist',
      );
    }
    const answer = await fetch(source, {
      headers: options.sourceRange ? { 'x-ms-range': options.sourceRange } : {},
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (!answer.ok) {
      throw StorageErrorFactory.getCannotVerifyCopySource(
        context.contextId,
        answer.status,
        messageOf(body.toString('utf8'), 'Could not verify the copy source within the specified time.'),
      );
    }
    return this.stageBlock(
      blockId,
      body.length,
      Readable.from([body]),
      { leaseAccessConditions: options.leaseAccessConditions, requestId: options.requestId },
      context,
    );
  };
}
