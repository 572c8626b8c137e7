import { describe, expect, it } from 'vitest';
import { AGENT_COST_PER_MB } from '@cumulo/contract';
import {
  agentEtaText,
  agentFilesText,
  agentSpeedText,
  costPerMbText,
  costText,
  historyDate,
  localParent,
  newLocalFolderPath,
  usdText,
} from './agent-format.ts';

describe('agent screen formats', () => {
  it('never shows a price per MB or a small cost as $0.00', () => {
    expect(AGENT_COST_PER_MB).toBeLessThan(0.0001);
    expect(costPerMbText()).toBe('$0.0000488');
    expect(costText(1024 * 1024)).toBe('$0.0000488');
    expect(costText(0)).toBe('$0.00');
    expect(usdText(12.5)).toBe('$12.50');
    expect(usdText(0.05)).toBe('$0.05');
  });

  it('counts the files done under the bar, and says so when the total counts only the files found so far', () => {
    const row = { filesDone: 1200, filesTotal: 2000, listedWhole: true, status: 'running' } as const;
    expect(agentFilesText(row)).toBe('1,200 of 2,000 files');
    expect(agentFilesText({ ...row, filesDone: 1, filesTotal: 1, status: 'completed' })).toBe('1 of 1 file');
    expect(agentFilesText({ ...row, listedWhole: false })).toBe('1,200 of 2,000+ files, still listing');
    // A listing that broke off: its bar (the share of the files found) can read full.
    expect(agentFilesText({ filesDone: 500, filesTotal: 500, listedWhole: false, status: 'failed' })).toBe(
      '500 of 500+ files, listing stopped',
    );
  });

  it('shows speeds in 1024-based units per second and the ETA in minutes and seconds', () => {
    expect(agentSpeedText(2048)).toBe('2 MB/s');
    expect(agentSpeedText(0.5)).toBe('512 Bytes/s');
    expect(agentEtaText(200_000)).toBe('3m 20s');
    expect(agentEtaText(7_500_000)).toBe('2h 5m');
    expect(agentEtaText(-1)).toBe('—');
  });

  it('dates history rows as MMM-DD-YY', () => {
    expect(historyDate('2026-06-03T09:30:00.000Z')).toBe('Jun-03-26');
  });

  it('makes new local folder paths by the spec 001 §5 rule', () => {
    expect(newLocalFolderPath('/Projects', '//2026//june/')).toBe('/Projects/2026/june');
    expect(newLocalFolderPath('/Projects/', 'drafts')).toBe('/Projects/drafts');
    expect(newLocalFolderPath('/Projects', ' /// ')).toBeNull();
    expect(localParent('/Projects/raw')).toBe('/Projects');
    expect(localParent('/Projects')).toBe('/');
  });
});
