import { FS_FILE_TYPE } from '@cumulo/contract';
import type { LocalFile } from '../upload/local-files.ts';

/** The two panels of the two-panel transfer screen: left is the source, right the destination. */
export type Side = 'source' | 'destination';
export const SIDES: readonly Side[] = ['source', 'destination'];
export const otherSide = (side: Side): Side => (side === 'source' ? 'destination' : 'source');

/** Spec 001 §2: the left panel may be "Local" (account id null in the spec); a sentinel keeps null for "none". */
export const LOCAL_ACCOUNT = 'local';

export type TransferKind = 'Direct' | 'ftX';
export const TRANSFER_KINDS: readonly TransferKind[] = ['Direct', 'ftX'];

export interface PanelLocation {
  /** A cloud account id, LOCAL_ACCOUNT (left only) or null while none is chosen (and on the left with ftX). */
  accountId: string | null;
  bucket: string | null;
  /**
   * The open folder: '' or 'a/b/' in a bucket. With type ftX the left panel is the agent's local files, and this
   * is the agent's folder in the same form: '/' (the folders added to the agent) or '/Photos/2024/'.
   */
  path: string;
}

/** The ftX local browser's top: the list of folders added to the agent. */
export const FTX_ROOT = '/';

/** A row of a panel: a listing item in the fields a transfer needs. */
export interface PanelFile {
  /** Full key; folders end with '/'. */
  key: string;
  name: string;
  size: number;
  type: (typeof FS_FILE_TYPE)[keyof typeof FS_FILE_TYPE];
}

/** What a transfer shows before the server answers (spec 001 §4 "Files move optimistically"). */
export interface PanelOverlay {
  /** Rows added to this panel's open folder, marked as transferring. */
  added: PanelFile[];
  /** Keys hidden from this panel (the source of a move). */
  removed: string[];
}

export interface TransferScreenState {
  /** The signed-in user the state belongs to: another user's sign-in starts afresh. */
  userId: string | null;
  /** Spec 001 §2: the account list is initialised after a 500 ms delay, once per screen state. */
  accountsReady: boolean;
  transferType: TransferKind;
  panels: Record<Side, PanelLocation>;
  selected: Record<Side, PanelFile[]>;
  /** Same-side drops reorder rows: the keys in the order the user left them. */
  order: Record<Side, string[]>;
  overlay: Record<Side, PanelOverlay>;
  /** Local files chosen in the left panel while its account is "Local". */
  localChosen: LocalFile[];
  /**
   * ftX transfers started from this screen whose rows are still shown as transferring: when the agent reports one
   * ended, the panel it wrote to is listed again and these rows give way to the listing.
   */
  agentTransfers: AgentTransferRows[];
}

interface AgentTransferRows {
  transferId: string;
  /** The panel the files were copied into. */
  side: Side;
  keys: string[];
}

const emptyLocation = (): PanelLocation => ({ accountId: null, bucket: null, path: '' });
const emptyOverlay = (): PanelOverlay => ({ added: [], removed: [] });

export function initialTransferScreen(userId: string | null = null): TransferScreenState {
  return {
    userId,
    accountsReady: false,
    transferType: 'Direct',
    panels: { source: emptyLocation(), destination: emptyLocation() },
    selected: { source: [], destination: [] },
    order: { source: [], destination: [] },
    overlay: { source: emptyOverlay(), destination: emptyOverlay() },
    localChosen: [],
    agentTransfers: [],
  };
}

/** A panel shows another folder: its selection, order and optimistic rows belonged to the previous one. */
function withLocation(state: TransferScreenState, side: Side, location: PanelLocation): TransferScreenState {
  return {
    ...state,
    panels: { ...state.panels, [side]: location },
    selected: { ...state.selected, [side]: [] },
    order: { ...state.order, [side]: [] },
    overlay: { ...state.overlay, [side]: emptyOverlay() },
  };
}

/**
 * Spec 001 §4: changing the account resets the bucket to that account's first bucket. Choosing "Local" sets the
 * type back to Direct. With ftX the left panel is the agent's files, so choosing any account on the left leaves
 * ftX too (the spec's "choosing ftX on the left" return to Direct): the left is then that account's bucket.
 */
export function chooseAccount(
  state: TransferScreenState,
  side: Side,
  accountId: string,
  firstBucket: string | null,
): TransferScreenState {
  const local = accountId === LOCAL_ACCOUNT;
  const next = withLocation(state, side, {
    accountId,
    bucket: local ? null : firstBucket,
    path: '',
  });
  return local || side === 'source' ? { ...next, transferType: 'Direct' } : next;
}

/** Spec 001 §4: changing the bucket clears the path. */
export function chooseBucket(state: TransferScreenState, side: Side, bucket: string): TransferScreenState {
  return withLocation(state, side, { ...state.panels[side], bucket, path: '' });
}

export function openFolder(state: TransferScreenState, side: Side, path: string): TransferScreenState {
  return withLocation(state, side, { ...state.panels[side], path });
}

/**
 * Spec 001 §4: switching the type to ftX clears the left account; the left panel then shows the agent's added
 * folders. Back to Direct, the left panel has no account until the user picks one.
 */
export function chooseTransferType(state: TransferScreenState, kind: TransferKind): TransferScreenState {
  if (kind === state.transferType) return state;
  const next = { ...state, transferType: kind };
  if (kind === 'ftX')
    return {
      ...withLocation(next, 'source', { accountId: null, bucket: null, path: FTX_ROOT }),
      localChosen: [],
    };
  return next.panels.source.accountId === null ? withLocation(next, 'source', emptyLocation()) : next;
}

export function selectFiles(state: TransferScreenState, side: Side, files: PanelFile[]): TransferScreenState {
  return { ...state, selected: { ...state.selected, [side]: files } };
}

/** Spec 001 §4: the transfer buttons act only when exactly one side has selected files and the other none. */
export function transferDirection(state: TransferScreenState): { from: Side; to: Side } | null {
  const source = state.selected.source.length > 0;
  const destination = state.selected.destination.length > 0;
  if (source === destination) return null;
  return source ? { from: 'source', to: 'destination' } : { from: 'destination', to: 'source' };
}

/** The key a file takes in the destination folder. */
function destinationKey(file: PanelFile, folder: string): string {
  return `${folder}${file.name}${file.type === FS_FILE_TYPE.folder ? '/' : ''}`;
}

/** Files move optimistically: shown in the destination folder, and (for a move) hidden from the source. */
export function applyOptimistic(
  state: TransferScreenState,
  from: Side,
  files: PanelFile[],
  operation: 'move' | 'copy',
): TransferScreenState {
  const to = otherSide(from);
  const folder = state.panels[to].path;
  const shown = new Set(state.overlay[to].added.map((file) => file.key));
  const added = files
    .map((file) => ({ ...file, key: destinationKey(file, folder) }))
    .filter((file) => !shown.has(file.key));
  return {
    ...state,
    selected: { ...state.selected, [from]: [] },
    overlay: {
      ...state.overlay,
      [to]: { ...state.overlay[to], added: [...added, ...state.overlay[to].added] },
      [from]:
        operation === 'move'
          ? {
              ...state.overlay[from],
              removed: [...state.overlay[from].removed, ...files.map((file) => file.key)],
            }
          : state.overlay[from],
    },
  };
}

/** A failed transfer puts the files back where they were (and selected again, to retry). */
export function revertOptimistic(
  state: TransferScreenState,
  from: Side,
  files: PanelFile[],
  destinationFolder: string,
): TransferScreenState {
  const to = otherSide(from);
  const addedKeys = new Set(files.map((file) => destinationKey(file, destinationFolder)));
  const sourceKeys = new Set(files.map((file) => file.key));
  const sameFolders = state.panels[to].path === destinationFolder;
  return {
    ...state,
    selected: { ...state.selected, [from]: files },
    overlay: {
      ...state.overlay,
      [to]: sameFolders
        ? { ...state.overlay[to], added: state.overlay[to].added.filter((file) => !addedKeys.has(file.key)) }
        : state.overlay[to],
      [from]: {
        ...state.overlay[from],
        removed: state.overlay[from].removed.filter((key) => !sourceKeys.has(key)),
      },
    },
  };
}

/** Same-side drop: the dragged rows move before the row they were dropped on (after the last row when none). */
export function reorderKeys(current: readonly string[], dragged: readonly string[], target: string | null) {
  const moving = new Set(dragged);
  if (target !== null && moving.has(target)) return [...current];
  const rest = current.filter((key) => !moving.has(key));
  const kept = current.filter((key) => moving.has(key));
  const at = target === null ? rest.length : rest.indexOf(target);
  if (at < 0) return [...rest, ...kept];
  return [...rest.slice(0, at), ...kept, ...rest.slice(at)];
}

/**
 * The rows of a panel as shown: optimistic rows first (until the listing holds them), hidden ones out, the user's
 * order applied.
 */
export function visibleRows(rows: readonly PanelFile[], order: readonly string[], overlay: PanelOverlay) {
  const removed = new Set(overlay.removed);
  const listedKeys = new Set(rows.map((row) => row.key));
  const pending = overlay.added.filter((file) => !listedKeys.has(file.key));
  const all = [...pending, ...rows.filter((row) => !removed.has(row.key))];
  if (order.length === 0) return all;
  const rank = new Map(order.map((key, index) => [key, index]));
  // Rows the user never moved keep their listing order after the ordered ones (new pages append).
  return all
    .map((row, index) => ({ row, rank: rank.get(row.key) ?? order.length + index }))
    .sort((a, b) => a.rank - b.rank)
    .map((entry) => entry.row);
}

/** An ftX transfer started: remember which rows it shows as transferring, until the agent says it ended. */
export function trackAgentTransfer(
  state: TransferScreenState,
  transferId: string,
  side: Side,
  files: PanelFile[],
  folder: string,
): TransferScreenState {
  const keys = files.map((file) => destinationKey(file, folder));
  return { ...state, agentTransfers: [...state.agentTransfers, { transferId, side, keys }] };
}

/**
 * An ftX transfer ended (its panel was listed again): its rows stop being "transferring"; what arrived is in the
 * listing now, and what failed is gone from the panel.
 */
export function settleAgentTransfer(state: TransferScreenState, transferId: string): TransferScreenState {
  const entry = state.agentTransfers.find((candidate) => candidate.transferId === transferId);
  if (!entry) return state;
  const keys = new Set(entry.keys);
  const overlay = state.overlay[entry.side];
  return {
    ...state,
    agentTransfers: state.agentTransfers.filter((candidate) => candidate !== entry),
    overlay: {
      ...state.overlay,
      [entry.side]: { ...overlay, added: overlay.added.filter((file) => !keys.has(file.key)) },
    },
  };
}

export function setOrder(state: TransferScreenState, side: Side, order: string[]): TransferScreenState {
  return { ...state, order: { ...state.order, [side]: order } };
}
