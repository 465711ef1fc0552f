import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { jobId, specId, job, PRIORITY } from '../../jobs/job-id.ts';

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 20);

test('a job id is its kind and the digest of its payload with sorted keys (ids queued by earlier versions keep matching)', () => {
  expect(jobId('fragranceProfile', { id: 'a/b' })).toBe(`fragranceProfile-${sha1('{"id":"a/b"}')}`);
  expect(jobId('fragranceReviews', { knownTotal: 3, id: 'x', knownCount: null })).toBe(
    `fragranceReviews-${sha1('{"id":"x","knownCount":null,"knownTotal":3}')}`,
  );
  const spec = job('batch', { ids: ['b', 'a'] }, PRIORITY.entity);
  expect(specId(spec)).toBe(`batch-${sha1('{"ids":["b","a"]}')}`);
  expect(specId(spec)).toBe(specId(spec));
});
