import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { uploadMessages } from '@cumulo/contract';
import type { UploadFileView, UploadSnapshot } from './upload-engine.ts';
import { RUNNING_ROWS_MAX, UploadList } from './UploadList.tsx';

function file(i: number, fields: Partial<UploadFileView>): UploadFileView {
  return {
    id: `f${i}`,
    name: `album/f${i}.txt`,
    key: `album/f${i}.txt`,
    cloudAccountId: '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01',
    bucketName: 'photos',
    size: 4096,
    status: 'queued',
    percent: 0,
    speed: 0,
    eta: null,
    error: null,
    warning: null,
    resumed: false,
    corsSuspected: false,
    directoryId: 'd1',
    batched: false,
    ...fields,
  };
}

/** A folder of 5 040 files half way: 40 sending, 1 000 waiting, 2 000 failed, 2 000 done. */
function bigRun(): UploadSnapshot {
  const files = [
    ...Array.from({ length: 40 }, (_, i) =>
      file(i, { status: 'uploading', percent: 50, speed: 1000.9115770282589, eta: 65 }),
    ),
    ...Array.from({ length: 1000 }, (_, i) => file(1000 + i, {})),
    ...Array.from({ length: 2000 }, (_, i) =>
      file(3000 + i, { status: 'exception', error: uploadMessages.failed }),
    ),
  ];
  return {
    files,
    directories: [],
    done: Array.from({ length: 2000 }, (_, i) => ({ id: `d${i}`, name: `album/done${i}.txt`, size: 4096 })),
    summary: {
      total: 5040,
      done: 2000,
      failed: 2000,
      bytesTotal: 5040 * 4096,
      bytesDone: 2020 * 4096,
      speed: 1000.9115770282589,
      eta: 125,
      hiddenSkipped: 3,
    },
  };
}

const noop = () => undefined;

describe('UploadList: one summary and bounded lists for a folder of thousands (issue 21)', () => {
  it('draws a bounded number of rows for 5 040 files and formats every speed', async () => {
    const onRetryFailed = vi.fn();
    const user = userEvent.setup();
    render(
      <UploadList
        snapshot={bigRun()}
        onCancel={noop}
        onCancelDirectory={noop}
        onDismiss={noop}
        onRetryFailed={onRetryFailed}
        applyingId={null}
      />,
    );
    const summary = screen.getByRole('status', { name: 'Upload summary' });
    expect(within(summary).getByLabelText('Files done')).toHaveTextContent('2000 of 5040 files');
    expect(within(summary).getByLabelText('Bytes done')).toHaveTextContent('7.89 MB of 19.69 MB');
    // The /mboard formatter, in bits per second; never a raw float.
    expect(within(summary).getByLabelText('Total speed')).toHaveTextContent(/^7\.82 Kbps$/);
    expect(within(summary).getByLabelText('Total time left')).toHaveTextContent('ETA 2:05');
    expect(within(summary).getByText(uploadMessages.hiddenSkipped(3))).toBeInTheDocument();
    expect(document.body.textContent).not.toMatch(/\d\.\d{3,}/);

    expect(screen.getByText('1000 files queued or sending')).toBeInTheDocument();
    expect(screen.getByText(`and ${40 - RUNNING_ROWS_MAX} more sending`)).toBeInTheDocument();
    // Many failures start collapsed; the done list too.
    expect(screen.getByText('Failed (2000)')).toBeInTheDocument();
    expect(screen.getByText('Done (2000)')).toBeInTheDocument();
    const fileRows = () => screen.queryAllByRole('listitem', { name: /^Upload(ed)? (of )?album\// });
    expect(fileRows()).toHaveLength(RUNNING_ROWS_MAX);

    await user.click(screen.getByText('Done (2000)'));
    await user.click(screen.getByText('Failed (2000)'));
    const done = screen.getByRole('list', { name: 'Done uploads' });
    const failed = screen.getByRole('list', { name: 'Failed uploads' });
    expect(within(done).getAllByRole('listitem').length).toBeLessThan(20);
    expect(within(failed).getAllByRole('listitem').length).toBeLessThan(20);
    expect(fileRows().length).toBeLessThan(RUNNING_ROWS_MAX + 40);
    expect(within(done).getByText('album/done0.txt')).toBeInTheDocument();

    // Scrolling the window draws the rows it reaches (40 px a row) and drops the others.
    fireEvent.scroll(done, { target: { scrollTop: 40 * 1500 } });
    expect(within(done).getByText('album/done1500.txt')).toBeInTheDocument();
    expect(within(done).queryByText('album/done0.txt')).toBeNull();
    expect(within(done).getAllByRole('listitem').length).toBeLessThan(20);

    await user.click(screen.getByRole('button', { name: 'Retry failed' }));
    expect(onRetryFailed).toHaveBeenCalledOnce();
  });

  it('shows a few failures open, with their reason and Dismiss', () => {
    const onDismiss = vi.fn();
    render(
      <UploadList
        snapshot={{
          files: [file(1, { name: 'cancel.bin', status: 'exception', error: uploadMessages.cancelled })],
          directories: [],
          done: [],
          summary: { ...bigRun().summary, total: 1, done: 0, failed: 1, hiddenSkipped: 0 },
        }}
        onCancel={noop}
        onCancelDirectory={noop}
        onDismiss={onDismiss}
        onRetryFailed={noop}
        applyingId={null}
      />,
    );
    const row = screen.getByRole('listitem', { name: 'Upload of cancel.bin' });
    expect(within(row).getByText(uploadMessages.cancelled)).toBeInTheDocument();
    fireEvent.click(within(row).getByRole('button', { name: 'Dismiss' }));
    expect(onDismiss).toHaveBeenCalledWith('f1');
  });
});
