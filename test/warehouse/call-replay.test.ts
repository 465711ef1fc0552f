import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ApiCallItem } from '../../src/domain/calls.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { batch, count, freshWarehouse } from './fixtures.ts';

/**
 * The ledger's replay check reads only the stored calls sent between a batch's first and
 * last call (07_ledger.sql). These tests store enough calls for several of DuckDB's row
 * groups (122,880 rows each), so that the stretch read is a small part of the table, and
 * replay calls from its start, middle and end, with and without a call id.
 */
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const STORED = 300_000;
const PER_BATCH = 25_000;

function call(i: number, callId?: string): ApiCallItem {
  const c: ApiCallItem = {
    kind: 'apiCall',
    at: new Date(T0 + i).toISOString(),
    method: 'GET',
    endpoint: '/v1/fragrances/{id}',
    status: 200,
    costCents: 1,
    quotaRemaining: 1_000_000 - i,
  };
  if (callId !== undefined) c.callId = callId;
  return c;
}

/** Even calls carry a call id (as sent through the journal), odd ones a content key only. */
const stored = (i: number): ApiCallItem => (i % 2 === 0 ? call(i, `c-${i}`) : call(i));

let wh: Warehouse;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ wh, cleanup } = await freshWarehouse());
  for (let from = 0; from < STORED; from += PER_BATCH) {
    const items = Array.from({ length: PER_BATCH }, (_, k) => stored(from + k));
    expect((await wh.load(batch(items))).counts.api_calls).toBe(PER_BATCH);
  }
}, 120_000);
afterEach(async () => {
  await cleanup();
});

describe('a call replayed into a large ledger is stored once', () => {
  test('replays from the first, a middle and the last row group, alone and beside new calls', async () => {
    const old = [0, 1, 150_001, 150_002, STORED - 1].map(stored);
    // alone: the batch's stretch is those calls' own times, spread across the table
    expect((await wh.load(batch(old))).counts.api_calls).toBe(0);
    // each one alone (its stretch is one instant); one with a call id also from a later run
    // (a dead worker's spool read by the next sync), a content key hashes its run
    for (const c of old) {
      const run = c.callId === undefined ? 'run-1' : 'run-2';
      expect((await wh.load(batch([c], [], run))).counts.api_calls).toBe(0);
    }
    // beside new calls sent later: the stretch starts at the replayed one
    const fresh = [call(STORED + 5, 'new-1'), call(STORED + 6)];
    expect((await wh.load(batch([old[2]!, ...fresh]))).counts.api_calls).toBe(2);
    expect(await count(wh, 'api_calls')).toBe(STORED + 2);
    expect(await count(wh, 'api_calls', `_call_key IS NULL`)).toBe(0);
  }, 60_000);

  test('a report of a call id sent earlier (its unanswered row, status 0) adds nothing', async () => {
    const unanswered: ApiCallItem = { ...call(200_000, 'c-200000'), status: 0, quotaRemaining: null };
    expect((await wh.load(batch([unanswered, call(STORED + 1)], [], 'run-3'))).counts.api_calls).toBe(1);
    expect(await count(wh, 'api_calls', `status = 0`)).toBe(0);
    // the same content under another call id is another request: stored
    expect((await wh.load(batch([call(200_000, 'c-other')]))).counts.api_calls).toBe(1);
  }, 60_000);
});
