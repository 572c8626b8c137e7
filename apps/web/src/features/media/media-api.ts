import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  mediaInfo,
  mediaPlayback,
  metadataEntry,
  type MediaLocation,
  type MediaPlayback,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/**
 * The media calls of one object (issue 26 point 3; spec 001 §7 "metadata add/delete/all"): media info, custom
 * metadata, playback. Every call is silent: the modal and the player show their own failures in words.
 */

/** An object to show or play, with the name its title shows. */
export interface MediaTarget extends MediaLocation {
  name: string;
}

/** Only the object's fields: a MediaTarget's name is not the API's business (and `name` means the entry's own). */
const locationOf = ({ cloud_account_id, bucket_name, path }: MediaLocation): MediaLocation => ({
  cloud_account_id,
  bucket_name,
  path,
});

const keyOf = (location: MediaLocation) =>
  queryKeys.mediaInfo(location.cloud_account_id, location.bucket_name, location.path);

/** GET /media/info: general, video, audio, s3_metadata and the custom metadata; a file that is not media is a 400. */
export function useMediaInfo(location: MediaLocation | null) {
  return useQuery({
    queryKey: location ? keyOf(location) : ['media-info', 'none'],
    enabled: location !== null,
    // The server answers the same for the same version; a refused file is not asked again on every focus.
    retry: false,
    queryFn: async ({ signal }) => {
      if (!location) throw new Error('no object');
      return mediaInfo.parse(
        await api.get('/media/info', { signal, query: { ...locationOf(location) }, silent: true }),
      );
    },
  });
}

/** POST /metadata/add: one Custom entry; the object's media info is read again to list it. */
export function useAddMetadata(location: MediaLocation) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (entry: { name: string; value: string }) =>
      metadataEntry.parse(
        await api.post('/metadata/add', { ...locationOf(location), ...entry }, { silent: true }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keyOf(location) }),
  });
}

/** DELETE /metadata/{id}. */
export function useDeleteMetadata(location: MediaLocation) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      metadataEntry.parse(await api.delete(`/metadata/${encodeURIComponent(id)}`, { silent: true })),
    onSuccess: () => client.invalidateQueries({ queryKey: keyOf(location) }),
  });
}

/** GET /media/play: a short-lived URL and whether it is a file or an HLS playlist. */
export async function fetchPlayback(location: MediaLocation): Promise<MediaPlayback> {
  return mediaPlayback.parse(
    await api.get('/media/play', { query: { ...locationOf(location) }, silent: true }),
  );
}
