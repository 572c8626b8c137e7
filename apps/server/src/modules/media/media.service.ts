import {
  MEDIA_PLAYLIST_MAX_BYTES,
  MEDIA_SOURCE_URL_MINUTES,
  mediaMessages,
  objectMessages,
  type AddMetadataBody,
  type MediaInfo,
  type MediaLocation,
  type MediaPlayback,
  type MetadataEntry,
} from '@cumulo/contract';
import { StorageError, type ObjectInfo } from '@cumulo/storage';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { AppError, badRequest, forbidden, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { indexedMediaInfo, type SearchIndex } from '../search/search-index.ts';
import type { Ffprobe } from './ffprobe.ts';
import { PLAYLIST_KEY, keyInFolder, rewritePlaylist } from './hls-playlist.ts';
import type { MediaRepo, MetadataRow, ObjectRef, ObjectVersion } from './media.repo.ts';
import type { PlaybackGrant, PlaybackTokens } from './playback-token.ts';

type Accounts = Pick<CloudAccountsRepo, 'find'>;
type Stores = Pick<StoreRegistry, 'storeFor'>;
type Store = Awaited<ReturnType<Stores['storeFor']>>;

/** Where the playback proxy answers (media.routes.ts under /api): root-relative, so any host name of ours works. */
const HLS_PROXY_PATH = '/api/media/hls';

const isUniqueViolation = (error: unknown) =>
  (error as { cause?: { code?: string } }).cause?.code === '23505' ||
  (error as { code?: string }).code === '23505';

/** How a source is read and played: signed URLs that live MEDIA_SOURCE_URL_MINUTES. */
const URL_SECONDS = MEDIA_SOURCE_URL_MINUTES * 60;

/**
 * Media info, playback and custom metadata of one object (issue 26 point 3; spec 001 §3 "Metadata entry", §7
 * "metadata add/delete/all"). Objects are read through a short-lived signed URL of their account's store; what
 * ffprobe found is kept per object version (MediaRepo), custom metadata in PostgreSQL.
 */
export class MediaService {
  constructor(
    private readonly repo: MediaRepo,
    private readonly accounts: Accounts,
    private readonly stores: Stores,
    /** Public so tests can watch whether a read probed. */
    readonly ffprobe: Pick<Ffprobe, 'probe'>,
    private readonly log: Logger,
    private readonly tokens: PlaybackTokens,
    /** The media-search index: a probe's sections and the custom metadata make the object findable by them. */
    private readonly searchIndex?: Pick<SearchIndex, 'upsertObjects' | 'setCustomMetadata' | 'setMediaInfo'>,
  ) {}

  /**
   * GET /media/info: the object's sections. Not media → 400 mediaMessages.notMedia (the modal shows that message,
   * and nothing else of a file that has no media sections); a missing object → 404.
   */
  async info(principal: Principal, location: MediaLocation): Promise<MediaInfo> {
    const { account, ref } = await this.#object(principal, location);
    const { store, stat } = await this.#stat(account, location);
    const at = versionOf(stat);
    let kept = await this.repo.probeOf(ref, at);
    if (!kept) {
      const url = await this.#sign(store, location);
      const outcome = await this.ffprobe.probe(url);
      if (outcome.kind === 'unreadable') {
        this.log.warn(
          { accountId: account.id, bucket: location.bucket_name, reason: outcome.reason },
          'probe failed',
        );
        throw new AppError(502, 'PROBE_FAILED', mediaMessages.sourceGone(location.path, outcome.reason));
      }
      kept = { sections: outcome.kind === 'media' ? outcome.sections : null };
      await this.repo.keepProbe(ref, at, kept.sections);
      if (kept.sections) {
        await this.searchIndex?.upsertObjects(ref.organizationId, account.id, ref.bucketName, [stat]);
        await this.searchIndex?.setMediaInfo(
          ref.organizationId,
          account.id,
          ref.bucketName,
          ref.path,
          indexedMediaInfo(kept.sections),
        );
      }
    }
    if (!kept.sections) throw badRequest(mediaMessages.notMedia(location.path));
    const metadata = await this.repo.metadataOf(ref);
    return { ...kept.sections, s3_metadata: storeSection(stat), metadata: metadata.map(entryOf) };
  }

  /**
   * GET /media/play: a file plays from a signed GET of the object; a playlist (.m3u8) through the proxy below,
   * with a token for its folder, as hls.js cannot send our Authorization header and a private bucket serves no
   * segment unsigned.
   */
  async play(principal: Principal, location: MediaLocation): Promise<MediaPlayback> {
    const { account } = await this.#object(principal, location);
    const { store } = await this.#stat(account, location);
    const expiresAt = new Date(Date.now() + URL_SECONDS * 1000);
    if (PLAYLIST_KEY.test(location.path)) {
      const folder = location.path.slice(0, location.path.lastIndexOf('/') + 1);
      const token = this.tokens.sign({
        organizationId: principal.organizationId,
        cloudAccountId: account.id,
        bucket: location.bucket_name,
        folder,
        expiresAt,
      });
      return {
        url: proxyUrl(token, location.path.slice(folder.length)),
        kind: 'hls',
        expires_at: expiresAt.toISOString(),
      };
    }
    return {
      url: await this.#sign(store, location),
      kind: 'file',
      expires_at: expiresAt.toISOString(),
    };
  }

  /**
   * GET /media/hls/{token}/{path} (public; the token is the capability): the playlist at `path` under the token's
   * folder, its variant playlists pointing back here with the same token and everything else signed. A tampered
   * token, a path outside the folder or not a playlist → 404; an expired token → 403.
   */
  async hlsPlaylist(token: string, relative: string): Promise<string> {
    const opened = this.tokens.open(token);
    if (opened.kind === 'expired') throw forbidden(mediaMessages.playbackExpired);
    if (opened.kind === 'invalid') throw notFound();
    const { grant } = opened;
    const key = keyInFolder(grant.folder, relative);
    if (key === null || !PLAYLIST_KEY.test(key)) throw notFound();
    // The account may have been removed since the token was made: its keys are gone with it.
    const account = await this.accounts.find(grant.organizationId, grant.cloudAccountId);
    if (!account) throw notFound();
    const store = await this.stores.storeFor(account);
    const location = { cloud_account_id: account.id, bucket_name: grant.bucket, path: key };
    const playlist = await this.#readPlaylist(store, location);
    if (!playlist.trimStart().startsWith('#EXTM3U')) throw badRequest(mediaMessages.notMedia(key));
    return rewritePlaylist(playlist, {
      playlistKey: key,
      folder: grant.folder,
      proxyUrl: (variant) => proxyUrl(token, variant.slice(grant.folder.length)),
      sign: (segment) => this.#sign(store, { ...location, path: segment }, secondsLeft(grant)),
    });
  }

  /** GET /metadata/all: the object's custom entries, oldest first (the object itself is not read). */
  async metadata(principal: Principal, location: MediaLocation): Promise<MetadataEntry[]> {
    const { ref } = await this.#object(principal, location);
    return (await this.repo.metadataOf(ref)).map(entryOf);
  }

  /** POST /metadata/add: one Custom entry; a second entry of the same name on the same object is refused. */
  async addMetadata(principal: Principal, body: AddMetadataBody): Promise<MetadataEntry> {
    authorize(principal, 'metadata.manage');
    const { account, ref } = await this.#object(principal, body);
    // Entries describe an object that exists: a typo in the path must not leave entries nobody sees.
    const { stat } = await this.#stat(account, body);
    try {
      const row = await this.repo.transaction(async (tx) => {
        const added = await tx.addMetadata(ref, {
          name: body.name,
          value: body.value,
          createdBy: principal.userId,
        });
        await recordAudit(tx.orm, principal, {
          entity: 'Metadata',
          type: 'Added',
          resource: `${body.bucket_name}/${body.path}: ${body.name}`,
          resourceId: added.id,
          changes: changesOf(null, auditedOf(added, account)),
        });
        return added;
      });
      await this.searchIndex?.upsertObjects(ref.organizationId, account.id, ref.bucketName, [stat]);
      await this.#indexCustom(ref);
      return entryOf(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw badRequest(mediaMessages.metadataExists(body.name));
      throw error;
    }
  }

  /** DELETE /metadata/{id}: any member removes an entry of their organisation; another's answers 404. */
  async deleteMetadata(principal: Principal, id: string): Promise<MetadataEntry> {
    authorize(principal, 'metadata.manage');
    const row = await this.repo.transaction(async (tx) => {
      const deleted = await tx.deleteMetadata(principal.organizationId, id);
      if (!deleted) return undefined;
      const account = await this.accounts.find(principal.organizationId, deleted.cloudAccountId);
      await recordAudit(tx.orm, principal, {
        entity: 'Metadata',
        type: 'Deleted',
        resource: `${deleted.bucketName}/${deleted.path}: ${deleted.name}`,
        resourceId: deleted.id,
        changes: changesOf(auditedOf(deleted, account), null),
      });
      return deleted;
    });
    if (!row) throw notFound();
    await this.#indexCustom({
      organizationId: principal.organizationId,
      cloudAccountId: row.cloudAccountId,
      bucketName: row.bucketName,
      path: row.path,
    });
    return entryOf(row);
  }

  /** The object's custom entries as the index keeps them, read after the change so that it ends as the table is. */
  async #indexCustom(ref: ObjectRef): Promise<void> {
    if (!this.searchIndex) return;
    try {
      const entries = await this.repo.metadataOf(ref);
      await this.searchIndex.setCustomMetadata(
        ref.organizationId,
        ref.cloudAccountId,
        ref.bucketName,
        ref.path,
        Object.fromEntries(entries.map((entry) => [entry.name, entry.value])),
      );
    } catch (error) {
      // The entry is saved: the index is a copy, and a later change of the object's entries writes it again.
      this.log.warn({ err: error, bucket: ref.bucketName }, 'media search index custom metadata not read');
    }
  }

  /** The caller's account (another organisation's answers 404) and the object's key in the tables. */
  async #object(
    principal: Principal,
    location: MediaLocation,
  ): Promise<{ account: CloudAccountRow; ref: ObjectRef }> {
    const account = await this.accounts.find(principal.organizationId, location.cloud_account_id);
    if (!account) throw notFound();
    return {
      account,
      ref: {
        organizationId: principal.organizationId,
        cloudAccountId: account.id,
        bucketName: location.bucket_name,
        path: location.path,
      },
    };
  }

  async #stat(account: CloudAccountRow, location: MediaLocation) {
    const store = await this.stores.storeFor(account);
    let stat: ObjectInfo | null;
    try {
      stat = await store.stat(location.bucket_name, location.path);
    } catch (error) {
      throw this.#providerFailure(error, location.bucket_name);
    }
    if (!stat) throw notFound(objectMessages.objectMissing(location.path));
    return { store, stat };
  }

  async #sign(store: Store, location: MediaLocation, seconds = URL_SECONDS): Promise<string> {
    try {
      return await store.signedUrl(location.bucket_name, location.path, {
        method: 'GET',
        expiresInSeconds: seconds,
      });
    } catch (error) {
      throw this.#providerFailure(error, location.bucket_name);
    }
  }

  /** The playlist's text, refused above MEDIA_PLAYLIST_MAX_BYTES without reading the rest. */
  async #readPlaylist(store: Store, location: MediaLocation): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      const body = await store.read(location.bucket_name, location.path);
      for await (const chunk of body) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        bytes += buffer.length;
        if (bytes > MEDIA_PLAYLIST_MAX_BYTES) {
          body.destroy();
          throw badRequest(mediaMessages.playlistTooLarge(location.path));
        }
        chunks.push(buffer);
      }
    } catch (error) {
      if (error instanceof StorageError && error.code === 'ObjectNotFound') {
        throw notFound(objectMessages.objectMissing(location.path));
      }
      throw this.#providerFailure(error, location.bucket_name);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  #providerFailure(error: unknown, bucket: string) {
    if (error instanceof StorageError && error.code === 'BucketNotFound') {
      return notFound(`The bucket ${bucket} does not exist in this account.`);
    }
    if (error instanceof AppError) return error;
    return providerError(error);
  }
}

/**
 * Which bytes a probe read: the ETag (the last-modified time where a provider gives none) with the size. An
 * overwrite changes the ETag, or at least the time, so the next read probes again.
 */
function versionOf(stat: ObjectInfo): ObjectVersion {
  return { version: stat.etag ?? stat.lastModified?.toISOString() ?? '', size: stat.size };
}

/** The store's own answer about the object (its HEAD), user metadata as `metadata.<name>`. */
function storeSection(stat: ObjectInfo): Record<string, string | number> {
  const section: Record<string, string | number> = { size: stat.size };
  if (stat.contentType) section.content_type = stat.contentType;
  if (stat.lastModified) section.last_modified = stat.lastModified.toISOString();
  if (stat.etag) section.etag = stat.etag;
  const headers = stat.contentHeaders ?? {};
  if (headers.cacheControl) section.cache_control = headers.cacheControl;
  if (headers.contentDisposition) section.content_disposition = headers.contentDisposition;
  if (headers.contentEncoding) section.content_encoding = headers.contentEncoding;
  if (headers.contentLanguage) section.content_language = headers.contentLanguage;
  for (const [name, value] of Object.entries(stat.metadata)) section[`metadata.${name}`] = value;
  return section;
}

/** A proxy URL: the token, then the key under the token's folder with each segment encoded. */
function proxyUrl(token: string, relative: string): string {
  return `${HLS_PROXY_PATH}/${token}/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * How long a segment's signed URL lives: what is left of the token, so no URL the proxy hands out outlives the
 * playback it was made for (at least a minute, so a playlist read just before expiry still starts).
 */
function secondsLeft(grant: PlaybackGrant): number {
  return Math.max(60, Math.floor((grant.expiresAt.getTime() - Date.now()) / 1000));
}

function entryOf(row: MetadataRow): MetadataEntry {
  return {
    id: row.id,
    name: row.name,
    value: row.value,
    category: 'Custom',
    cloud: row.cloudAccountId,
    storage: row.bucketName,
    path: row.path,
  };
}

function auditedOf(row: MetadataRow, account: CloudAccountRow | undefined) {
  return { name: row.name, value: row.value, path: `${row.bucketName}/${row.path}`, account: account?.name };
}
