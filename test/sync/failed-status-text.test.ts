import { describe, expect, it } from 'vitest';
import { failedStatusText } from '../../src/sync/summary-figures.ts';

/** The summary's "failed calls: N (...)": what failed, by status, and what its 404s confirmed. */
describe('failedStatusText', () => {
  it('names the removals the 404s confirmed, one or more', () => {
    expect(failedStatusText([{ status: 404, calls: 1, removalsConfirmed: 1 }])).toBe(
      '404 not found: 1, confirming 1 removal',
    );
    expect(
      failedStatusText([
        { status: 404, calls: 3, removalsConfirmed: 3 },
        { status: 0, calls: 2 },
        { status: 503, calls: 1 },
      ]),
    ).toBe('404 not found: 3, confirming 3 removals, no answer: 2, 503 server error: 1');
  });

  it('404s that confirmed no removal keep the general reading', () => {
    expect(failedStatusText([{ status: 404, calls: 2 }])).toBe('404 not found (an item gone upstream): 2');
    expect(failedStatusText([{ status: 402, calls: 1 }])).toBe('402 balance exhausted: 1');
  });
});
