import { formatBytes, transferMessages, type MigrationStatus } from '@cumulo/contract';
import { formatDuration } from './transfer-stats.ts';

/** What the status text of a live batch or file reads (spec 001 §3 "Ongoing migration" and its file entries). */
export interface StatusSubject {
  status: MigrationStatus;
  percent: number;
  size: number;
  transferred: number;
  skipped_size?: number;
  message?: string | null;
  started?: string | null;
  ended?: string | null;
}

export type StatusTone = 'processing' | 'failed' | 'enqueued' | 'succeeded' | 'waiting';

export interface StatusLine {
  tone: StatusTone;
  text: string;
  /** How long a finished copy took, when known. */
  duration?: string;
}

function durationOf(subject: StatusSubject): string | undefined {
  if (!subject.started || !subject.ended) return undefined;
  const seconds = (Date.parse(subject.ended) - Date.parse(subject.started)) / 1000;
  return Number.isFinite(seconds) ? formatDuration(seconds) : undefined;
}

/**
 * Spec 001 §4: Failed or Canceled read "Transfer did not succeed - {message}"; a row at 0% with nothing counted yet
 * reads "- enqueued"; Succeeded reads "transferred {size}" with its duration; a running copy shows how far it got.
 */
export function statusLine(subject: StatusSubject): StatusLine {
  if (subject.status === 'Failed' || subject.status === 'Canceled') {
    return { tone: 'failed', text: transferMessages.didNotSucceed(subject.message || subject.status) };
  }
  if (subject.status === 'Succeeded') {
    return {
      tone: 'succeeded',
      text: `transferred ${formatBytes(subject.size)}`,
      duration: durationOf(subject),
    };
  }
  if (subject.percent === 0 && subject.transferred === 0 && !subject.skipped_size) {
    return { tone: 'enqueued', text: '- enqueued' };
  }
  const done = formatBytes(subject.transferred);
  const text = `${done} of ${formatBytes(subject.size)}`;
  return { tone: subject.status === 'Processing' ? 'processing' : 'waiting', text };
}
