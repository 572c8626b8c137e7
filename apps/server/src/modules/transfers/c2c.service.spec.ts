import { describe, expect, it } from 'vitest';
import { commonFolder, historyDays, transferOfC2cMove } from './c2c.service.ts';

describe('c2c payload mapping', () => {
  it('takes the deepest folder holding every selected key and folder as the source path', () => {
    expect(commonFolder(['photos/2024/a.jpg', 'photos/2024/raw/'])).toBe('photos/2024/');
    expect(commonFolder(['photos/2024/a.jpg', 'photos/2023/b.jpg'])).toBe('photos/');
    expect(commonFolder(['photos/', 'docs/x.pdf'])).toBe('');
    expect(commonFolder(['top.txt'])).toBe('');
    expect(commonFolder(['ab/c/d.txt', 'a/x.txt'])).toBe('');
  });

  it('maps type, skip_active and leading slashes; the bucket root selects the whole bucket', () => {
    const base = {
      cloud_id: 'source',
      destination: { cloud_id: 'target', bucket_name: 'dst', path: 'in' },
      skip_active: true,
    };
    expect(
      transferOfC2cMove({ ...base, type: 0, files: [{ path: '//docs//a.pdf', bucket_name: 'src' }] }),
    ).toMatchObject({
      sourceBucket: 'src',
      sourcePath: 'docs/',
      files: ['docs/a.pdf'],
      operation: 'move',
      skipExisting: true,
      destinationPath: 'in',
    });
    expect(
      transferOfC2cMove({ ...base, type: 'copy', files: [{ path: '/', bucket_name: 'src' }] }),
    ).toMatchObject({ sourcePath: '', files: undefined, operation: 'copy' });
  });
});

describe('history days', () => {
  it("starts the requester's today at their local midnight", () => {
    const now = new Date('2025-03-10T01:30:00Z');
    expect(historyDays(now, 0).today.toISOString()).toBe('2025-03-10T00:00:00.000Z');
    // Two hours behind UTC it is still 9 March, 23:30.
    expect(historyDays(now, -120)).toEqual({
      today: new Date('2025-03-09T02:00:00Z'),
      yesterday: new Date('2025-03-08T02:00:00Z'),
      weekStart: new Date('2025-03-03T02:00:00Z'),
      end: new Date('2025-03-10T02:00:00Z'),
    });
  });
});
