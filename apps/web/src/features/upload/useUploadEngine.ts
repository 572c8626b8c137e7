import { useEffect, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { uploadMessages } from '@cumulo/contract';
import { queryKeys } from '../../api/query-keys.ts';
import { UploadEngine, type UploadSnapshot } from './upload-engine.ts';
import { httpUploadTransport, type UploadTransport } from './upload-transport.ts';

/**
 * The engine's list as React state. Called by the component that shows the list only: a snapshot a second must
 * not re-render the whole page (its bucket browser) while thousands of files go.
 */
export function useUploadSnapshot(engine: UploadEngine): UploadSnapshot {
  return useSyncExternalStore(
    (listener) => engine.subscribe(listener),
    () => engine.snapshot(),
  );
}

/**
 * One upload engine for the page's lifetime and the spec's notices (001 §8). Calls `onSettled` once nothing is
 * queued or running, so the bucket browser can list the new objects.
 */
export function useUploadEngine(onSettled: () => void, transport: UploadTransport = httpUploadTransport) {
  const [engine] = useState(() => new UploadEngine({ transport }));
  const { notification } = App.useApp();
  const queryClient = useQueryClient();

  useEffect(
    () =>
      engine.onEvent((event) => {
        if (event.type === 'file-complete' && !event.file.directoryId) {
          notification.success({
            title: uploadMessages.completeTitle,
            description: uploadMessages.complete(event.file.name, event.file.bucketName),
          });
        } else if (event.type === 'directory-complete') {
          notification.success({
            title: uploadMessages.completeTitle,
            description: uploadMessages.complete(event.directory.name, event.directory.bucketName),
          });
        } else if (event.type === 'directory-failed') {
          notification.error({
            title: uploadMessages.failedTitle,
            description: uploadMessages.filesFailed(event.failed, event.directory.name),
          });
        } else if (event.type === 'file-failed' && !event.file.directoryId) {
          // A folder's failures are told once, when the folder ends (above), not one notice per file.
          notification.error({
            title: uploadMessages.failedTitle,
            description: event.file.error ?? uploadMessages.failed,
          });
        } else if (event.type === 'idle') {
          onSettled();
          // Spec 001 §7: the profile is read again after a report (quota used).
          void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
        }
      }),
    [engine, notification, onSettled, queryClient],
  );

  // Leaving the page stops the requests; the sessions stay, so the same files picked again resume.
  useEffect(() => () => engine.dispose(), [engine]);

  return { engine };
}
