import dayjs from 'dayjs';
import {
  AGENT_COST_PER_MB,
  agentCost,
  formatBytes,
  formatUsd,
  normalizeFolderPath,
  type AgentTransfer,
  type UserProfile,
} from '@cumulo/contract';
import { agentPath } from './agent-client.ts';

/** Spec 001 §2: the history list's dates read like "Jun-03-25". */
const HISTORY_DATE_FORMAT = 'MMM-DD-YY';

export function historyDate(value: string): string {
  const date = dayjs(value);
  return date.isValid() ? date.format(HISTORY_DATE_FORMAT) : '';
}

/**
 * Dollars with at least `least` decimals and as many more as the first significant digit needs: the agent's
 * price per MB is a few millionths of a dollar and must never read "$0.00".
 */
export function usdText(amount: number, least = 2): string {
  if (!Number.isFinite(amount) || amount <= 0) return formatUsd(0, least);
  const needed = Math.ceil(-Math.log10(amount)) + 2;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: least,
    maximumFractionDigits: Math.min(10, Math.max(least, needed)),
  }).format(amount);
}

export const costPerMbText = () => usdText(AGENT_COST_PER_MB);
export const costText = (bytes: number) => usdText(agentCost(bytes));

/** The agent reports KB/s (1024 bytes); shown in 1024-based units per second. */
export function agentSpeedText(kbPerSecond: number): string {
  return `${formatBytes(Math.round(kbPerSecond * 1024))}/s`;
}

/** The agent's ETA in ms (-1 while unknown) as '45s', '3m 20s' or '2h 5m'. */
export function agentEtaText(ms: number): string {
  if (ms < 0 || !Number.isFinite(ms)) return '—';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

const count = (value: number) => value.toLocaleString('en-US');

/**
 * How many files of a transfer are done, under its progress bar: '12 of 40 files'. While the files are still being
 * found the total is a floor ('12 of 500+ files, still listing'); a transfer that ended before they all were found
 * says so, since its bar (the share of the files found) may read full.
 */
export function agentFilesText(
  transfer: Pick<AgentTransfer, 'filesDone' | 'filesTotal' | 'listedWhole' | 'status'>,
): string {
  const { filesDone, filesTotal, listedWhole, status } = transfer;
  if (listedWhole)
    return `${count(filesDone)} of ${count(filesTotal)} ${filesTotal === 1 ? 'file' : 'files'}`;
  const ended = status === 'failed' || status === 'cancelled';
  return `${count(filesDone)} of ${count(filesTotal)}+ files, ${ended ? 'listing stopped' : 'still listing'}`;
}

/** The local folder above `path` ('/Photos/2024' → '/Photos'; an added folder → the root '/'). */
export function localParent(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash <= 0 ? '/' : trimmed.slice(0, slash);
}

/**
 * The agent path of a new folder typed in `name` under `parent` (spec 001 §5: leading slashes removed, doubled
 * slashes collapsed; the agent's paths start with a slash). Null when the name is empty after that.
 */
export function newLocalFolderPath(parent: string, name: string): string | null {
  const folder = normalizeFolderPath(name).replace(/\/$/, '');
  if (!folder) return null;
  return agentPath(`${parent.replace(/\/+$/, '')}/${folder}`);
}

/**
 * Whether the member's ftX access is on (an Owner or an Admin may turn it off on /users/{id}); unknown until the
 * profile is read. Off, no agent transfer starts: spec 001 §8 'Files transfers are not activated for this user'.
 */
export function ftxActivated(profile: UserProfile | undefined): boolean {
  return profile?.acl.services.ftx !== false;
}

/** Spec 001 §4/§6: ftX transfers need the organisation's confirmation of the charge, unless it is flagged is_cbs. */
export function ftxChargeConfirmed(profile: UserProfile | undefined): boolean {
  return profile !== undefined && (profile.organization.confirmed_ftx || profile.organization.is_cbs);
}
