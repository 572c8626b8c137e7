import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { uploadMessages } from '@cumulo/contract';
import { queryKeys } from '../../api/query-keys.ts';
import { UploadEngine, type UploadSnapshot } from './upload-engine.ts';
import { httpUploadTransport, type UploadTransport } from './upload-transport.ts';

/** Up to this many files a run gets a notice per file (spec 001 §8); more get one notice per bucket. */
const NOTICE_EACH_MAX = 10;

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
  /** Loose files done per bucket since the last idle, when there were too many for a notice each. */
  const looseDone = useRef(new Map<string, number>());

  useEffect(
    () =>
      engine.onEvent((event) => {
        if (event.type === 'file-complete' && !event.file.directoryId) {
          // Many loose files get one notice at the end (below), not one each.
          if (engine.snapshot().summary.total <= NOTICE_EACH_MAX) {
            notification.success({
              title: uploadMessages.completeTitle,
              description: uploadMessages.complete(event.file.name, event.file.bucketName),
            });
          } else {
            looseDone.current.set(
              event.file.bucketName,
              (looseDone.current.get(event.file.bucketName) ?? 0) + 1,
            );
          }
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
          for (const [bucket, count] of looseDone.current) {
            notification.success({
              title: uploadMessages.completeTitle,
              description: uploadMessages.complete(`${count} files`, bucket),
            });
          }
          looseDone.current.clear();
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
