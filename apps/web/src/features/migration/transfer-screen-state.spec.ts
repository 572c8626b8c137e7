import { describe, expect, it } from 'vitest';
import { FS_FILE_TYPE } from '@cumulo/contract';
import {
  FTX_ROOT,
  LOCAL_ACCOUNT,
  applyOptimistic,
  chooseAccount,
  chooseBucket,
  chooseTransferType,
  initialTransferScreen,
  openFolder,
  reorderKeys,
  revertOptimistic,
  selectFiles,
  settleAgentTransfer,
  trackAgentTransfer,
  transferDirection,
  visibleRows,
  type PanelFile,
} from './transfer-screen-state.ts';

const file = (key: string): PanelFile => ({
  key,
  name: key.replace(/\/$/, '').split('/').at(-1) ?? key,
  size: 10,
  type: key.endsWith('/') ? FS_FILE_TYPE.folder : FS_FILE_TYPE.file,
});

function twoBuckets() {
  let state = initialTransferScreen('user-1');
  state = chooseAccount(state, 'source', 'acc-a', 'photos');
  state = chooseAccount(state, 'destination', 'acc-b', 'archive');
  return openFolder(state, 'destination', 'in/');
}

describe('two-panel transfer screen state', () => {
  it("resets the bucket to the account's first bucket and the path on an account change; a bucket change clears the path", () => {
    let state = openFolder(twoBuckets(), 'source', 'docs/');
    state = selectFiles(state, 'source', [file('docs/a.txt')]);
    state = chooseBucket(state, 'source', 'backup');
    expect(state.panels.source).toEqual({ accountId: 'acc-a', bucket: 'backup', path: '' });
    expect(state.selected.source).toEqual([]);
    state = chooseAccount(state, 'source', 'acc-c', 'first');
    expect(state.panels.source).toEqual({ accountId: 'acc-c', bucket: 'first', path: '' });
  });

  it('clears the left account when ftX is chosen, and Local sets the type back to Direct', () => {
    let state = chooseTransferType(twoBuckets(), 'ftX');
    expect(state.panels.source.accountId).toBeNull();
    expect(state.panels.destination.bucket).toBe('archive');
    state = chooseAccount(state, 'source', LOCAL_ACCOUNT, null);
    expect(state.transferType).toBe('Direct');
    expect(state.panels.source.bucket).toBeNull();
  });

  it("opens the agent's added folders on ftX; a cloud account on the left goes back to Direct, as does Direct itself", () => {
    let state = selectFiles(twoBuckets(), 'source', [file('a.txt')]);
    state = chooseTransferType(state, 'ftX');
    expect(state.panels.source).toEqual({ accountId: null, bucket: null, path: FTX_ROOT });
    expect(state.selected.source).toEqual([]);
    state = openFolder(state, 'source', '/Photos/');
    expect(chooseTransferType(state, 'ftX')).toBe(state);

    const cloud = chooseAccount(state, 'source', 'acc-a', 'photos');
    expect(cloud.transferType).toBe('Direct');
    expect(cloud.panels.source).toEqual({ accountId: 'acc-a', bucket: 'photos', path: '' });
    // The destination's account does not touch the type.
    expect(chooseAccount(state, 'destination', 'acc-c', 'x').transferType).toBe('ftX');

    const direct = chooseTransferType(state, 'Direct');
    expect(direct.panels.source).toEqual({ accountId: null, bucket: null, path: '' });
  });

  it("keeps an ftX transfer's rows as transferring until it is settled, then only the listing shows them", () => {
    let state = openFolder(chooseTransferType(twoBuckets(), 'ftX'), 'source', '/Photos/');
    const local = [file('/Photos/beach.jpg'), file('/Photos/2024/')];
    state = selectFiles(state, 'source', local);
    state = applyOptimistic(state, 'source', local, 'copy');
    state = trackAgentTransfer(state, 'transfer-1', 'destination', local, 'in/');
    expect(state.agentTransfers).toEqual([
      { transferId: 'transfer-1', side: 'destination', keys: ['in/beach.jpg', 'in/2024/'] },
    ]);
    expect(state.overlay.destination.added.map((row) => row.key)).toEqual(['in/beach.jpg', 'in/2024/']);

    state = settleAgentTransfer(state, 'transfer-1');
    expect(state.agentTransfers).toEqual([]);
    expect(state.overlay.destination.added).toEqual([]);
    expect(settleAgentTransfer(state, 'transfer-1')).toBe(state);
  });

  it('gives a direction only when exactly one side has selected files', () => {
    let state = twoBuckets();
    expect(transferDirection(state)).toBeNull();
    state = selectFiles(state, 'destination', [file('x')]);
    expect(transferDirection(state)).toEqual({ from: 'destination', to: 'source' });
    state = selectFiles(state, 'source', [file('y')]);
    expect(transferDirection(state)).toBeNull();
  });

  it('moves files optimistically into the destination folder and puts them back on failure', () => {
    const files = [file('docs/'), file('clip.mp4')];
    const before = selectFiles(twoBuckets(), 'source', files);
    const moved = applyOptimistic(before, 'source', files, 'move');
    expect(moved.overlay.destination.added.map((row) => row.key)).toEqual(['in/docs/', 'in/clip.mp4']);
    expect(moved.overlay.source.removed).toEqual(['docs/', 'clip.mp4']);
    expect(moved.selected.source).toEqual([]);
    const listed = [file('docs/'), file('clip.mp4'), file('a.txt')];
    expect(visibleRows(listed, [], moved.overlay.source).map((row) => row.key)).toEqual(['a.txt']);

    const reverted = revertOptimistic(moved, 'source', files, 'in/');
    expect(reverted.overlay.destination.added).toEqual([]);
    expect(reverted.overlay.source.removed).toEqual([]);
    expect(reverted.selected.source).toEqual(files);

    const copied = applyOptimistic(before, 'source', files, 'copy');
    expect(copied.overlay.source.removed).toEqual([]);
  });

  it('prefers the listed row once the destination listing holds the transferred file', () => {
    const overlay = { added: [file('in/clip.mp4'), file('in/new.txt')], removed: [] };
    const listed = [file('in/clip.mp4')];
    expect(visibleRows(listed, [], overlay)).toEqual([file('in/new.txt'), file('in/clip.mp4')]);
  });

  it('reorders on a same-side drop: dragged rows go before the target, to the end without one', () => {
    expect(reorderKeys(['a', 'b', 'c', 'd'], ['d'], 'b')).toEqual(['a', 'd', 'b', 'c']);
    expect(reorderKeys(['a', 'b', 'c', 'd'], ['a', 'c'], 'd')).toEqual(['b', 'a', 'c', 'd']);
    expect(reorderKeys(['a', 'b', 'c'], ['a'], null)).toEqual(['b', 'c', 'a']);
    expect(reorderKeys(['a', 'b', 'c'], ['b'], 'b')).toEqual(['a', 'b', 'c']);
    expect(
      visibleRows([file('a'), file('b'), file('c'), file('z')], ['c', 'a', 'b'], {
        added: [],
        removed: [],
      }).map((row) => row.key),
    ).toEqual(['c', 'a', 'b', 'z']);
  });
});
