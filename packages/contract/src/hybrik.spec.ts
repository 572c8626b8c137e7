import { describe, expect, it } from 'vitest';
import { fillDefinitions, hybrikMessages, parseS3Url, planHybrikJob } from './hybrik.ts';

const source = {
  uid: 'src',
  kind: 'source',
  payload: { kind: 'asset_url', payload: { storage_provider: 's3', url: '{{source}}' } },
};
const transcode = (uid: string, container = 'mp4') => ({
  uid,
  kind: 'transcode',
  payload: {
    location: { path: 's3://out/renders' },
    targets: [{ file_pattern: '%s.mp4', container: { kind: container }, video: { codec: 'h264' } }],
  },
});
const link = (from: string, to: string) => ({
  from: [{ element: from }],
  to: { success: [{ element: to }] },
});
const job = (elements: object[], connections: object[]) => ({
  name: 'Job',
  payload: { elements, connections },
});
const errorOf = (value: unknown) => {
  const planned = planHybrikJob(value);
  return 'error' in planned ? planned.error : null;
};

describe('the Hybrik job-JSON subset (planHybrikJob)', () => {
  it('orders source, transcode and copy by their connections', () => {
    const copy = { uid: 'cp', kind: 'copy', payload: { target: { path: 's3://out/delivery' } } };
    const planned = planHybrikJob(
      job([copy, transcode('tc'), source], [link('tc', 'cp'), link('src', 'tc')]),
    );
    expect('plan' in planned && planned.plan.elements.map((element) => element.uid)).toEqual([
      'src',
      'tc',
      'cp',
    ]);
    expect('plan' in planned && planned.plan.inputs).toEqual({ tc: ['src'], cp: ['tc'] });
  });

  it('refuses in words: an unknown uid, no source, two sources, an unconnected element, chained transcodes', () => {
    expect(errorOf(job([source, transcode('tc')], [link('src', 'nope')]))).toBe(
      hybrikMessages.unknownUid('nope'),
    );
    expect(errorOf(job([transcode('tc')], []))).toBe(hybrikMessages.sourceMissing);
    expect(errorOf(job([source, { ...source, uid: 'src2' }], []))).toBe(hybrikMessages.oneSource);
    expect(errorOf(job([source, transcode('tc')], []))).toBe(hybrikMessages.unreachable('tc'));
    expect(errorOf(job([source, transcode('a'), transcode('b')], [link('src', 'a'), link('a', 'b')]))).toBe(
      hybrikMessages.transcodeInput('b'),
    );
    expect(errorOf(job([source, transcode('tc', 'avi')], [link('src', 'tc')]))).toMatch(
      /the container kind "avi" is not supported/,
    );
    expect(errorOf({ name: 'x' })).toMatch(/^job\.payload: /);
  });

  it('fills {{definitions}}, refusing one the job does not define, and reads s3:// URLs', () => {
    expect(fillDefinitions({ url: '{{source}}', n: 1 }, { source: 's3://a/b.mp4' })).toEqual({
      value: { url: 's3://a/b.mp4', n: 1, definitions: { source: 's3://a/b.mp4' } },
    });
    expect(fillDefinitions({ url: '{{nowhere}}' }, {})).toEqual({
      error: hybrikMessages.undefinedPlaceholder('nowhere'),
    });
    expect(parseS3Url('s3://bucket/folder/key.mp4')).toEqual({ bucket: 'bucket', key: 'folder/key.mp4' });
    expect(parseS3Url('https://example.com/x')).toBeNull();
  });
});
