/**
 * The HLS playlist rewrite of the playback proxy (media README "Playback"): every URI of a playlist read from a
 * private bucket becomes one the browser can fetch without the account's keys. Pure: the caller reads the
 * playlist and says how a key is proxied or signed.
 */

/** A playlist key: served (rewritten) by the proxy rather than signed. */
export const PLAYLIST_KEY = /\.m3u8$/i;

interface PlaylistRewrite {
  /** The playlist's own key: relative URIs resolve against its folder. */
  playlistKey: string;
  /** The folder the token grants ('' or ending with '/'): URIs resolving outside it are left as written. */
  folder: string;
  /** The proxy URL of a variant playlist under `folder`. */
  proxyUrl(key: string): string;
  /** A short-lived signed GET of a segment, key or init section under `folder`. */
  sign(key: string): Promise<string>;
}

/** A URI with a scheme (http:, https:, data:, skd:): played as written. */
const ABSOLUTE_URI = /^[a-z][a-z0-9+.-]*:/i;
/** The quoted URI attribute of a tag (EXT-X-KEY, EXT-X-MAP, EXT-X-MEDIA, EXT-X-I-FRAME-STREAM-INF, …). */
const URI_ATTRIBUTE = /URI="([^"]*)"/g;
/** A stand-in origin for resolving relative URIs with WHATWG URL rules (`..`, `./`, queries) against a key. */
const BASE = 'http://playlist.invalid/';

/**
 * The playlist with each URI line and each `URI="…"` attribute rewritten: variant playlists (.m3u8) to the proxy,
 * anything else to a signed GET; absolute URIs, and relative ones that resolve outside the granted folder, as
 * written (the latter then resolve against the proxy's URL, which refuses them).
 */
export async function rewritePlaylist(playlist: string, rewrite: PlaylistRewrite): Promise<string> {
  const lines = playlist.split(/\r?\n/);
  const uris = new Set<string>();
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    if (!trimmed.startsWith('#')) uris.add(trimmed);
    else for (const match of trimmed.matchAll(URI_ATTRIBUTE)) if (match[1]) uris.add(match[1]);
  }
  // Signing is local to the adapter (no request per URI), but it is async: sign every distinct URI at once.
  const replaced = new Map<string, string>(
    await Promise.all(
      [...uris].map(async (uri): Promise<[string, string]> => [uri, await rewriteUri(uri, rewrite)]),
    ),
  );
  const swap = (uri: string) => replaced.get(uri) ?? uri;
  return lines
    .map((line) => {
      const trimmed = line.trim();
      if (!trimmed) return line;
      if (!trimmed.startsWith('#')) return swap(trimmed);
      return trimmed.replace(URI_ATTRIBUTE, (whole, uri: string) => (uri ? `URI="${swap(uri)}"` : whole));
    })
    .join('\n');
}

async function rewriteUri(uri: string, rewrite: PlaylistRewrite): Promise<string> {
  if (ABSOLUTE_URI.test(uri)) return uri;
  const key = resolveKey(rewrite.playlistKey, uri);
  if (key === null || !key.startsWith(rewrite.folder)) return uri;
  return PLAYLIST_KEY.test(key) ? rewrite.proxyUrl(key) : rewrite.sign(key);
}

/** The bucket key a relative URI of the playlist at `playlistKey` names; null when it cannot be decoded. */
function resolveKey(playlistKey: string, uri: string): string | null {
  const folder = playlistKey.slice(0, playlistKey.lastIndexOf('/') + 1);
  // Keys may hold characters a URL gives meaning to ('%', '?', '#'): the base is the folder, percent-encoded.
  const base = BASE + folder.split('/').map(encodeURIComponent).join('/');
  try {
    const resolved = new URL(uri, base);
    if (resolved.origin !== new URL(BASE).origin) return null;
    return resolved.pathname.slice(1).split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
}

/**
 * The key a proxy request names: `relative` (the URL's path after the token) under `folder`. Null when it steps
 * out of the folder or is not a plain relative path (empty, '.', '..' or '' segments, a backslash).
 */
export function keyInFolder(folder: string, relative: string): string | null {
  if (relative === '' || relative.includes('\\')) return null;
  const segments = relative.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  return folder + relative;
}
