import { afterEach, expect, test } from 'vitest';
import { lastCycle, lateNew } from '../../src/sync/late-new.ts';
import { cycleRuns } from '../../src/sync/summary-figures.ts';
import { ledgerQuota, spendOnServiceDay } from '../../src/warehouse/ledger-day.ts';
import { CYCLE_END, withCycle, withServiceCalls } from '../../src/warehouse/run-sql.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { freshWarehouse } from './fixtures.ts';

/**
 * One rule places a ledger row on the service's clock (src/warehouse/service-clock.ts): its
 * time plus the offset of the latest run started at or before it, as the per-day spend reads
 * it. The cycle's service days (summary, sql/runs/cycle-before.sql) and the last cycle's first
 * day (late-new.ts) took the call's own run's offset instead, and
 * left out the calls of a run killed before it recorded one: here that run's answered call is
 * the cycle's first, on a service day the per-day spend counts it on and they did not.
 */
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const H3 = 3 * 3_600_000;

/**
 * P completed the cycle before (offset +3 h); K, full, was killed before it recorded an
 * offset, after one answered call at 22:00 on Jan 1 (Jan 2 01:00 on the service's clock, by
 * P's offset); C completed the cycle on Jan 3 (offset +3 h).
 */
async function killedRunInCycle(): Promise<Warehouse> {
  const wh = await emptyWarehouse();
  await run(wh, 'P', '2025-12-30T10:00:00Z', '2025-12-30T11:00:00Z', 'completed', H3);
  await call(wh, 'P', '2025-12-30T10:10:00Z');
  await run(wh, 'K', '2026-01-01T20:00:00Z', '2026-01-01T22:30:00Z', 'died', null);
  await call(wh, 'K', '2026-01-01T22:00:00Z');
  await run(wh, 'C', '2026-01-03T10:00:00Z', '2026-01-03T11:00:00Z', 'completed', H3);
  await call(wh, 'C', '2026-01-03T10:05:00Z');
  return wh;
}

async function emptyWarehouse(): Promise<Warehouse> {
  const fresh = await freshWarehouse();
  cleanup = fresh.cleanup;
  return fresh.wh;
}

async function run(
  wh: Warehouse,
  id: string,
  start: string,
  end: string,
  status: string,
  offsetMs: number | null,
) {
  await wh.query('INSERT INTO sync_runs VALUES ($1, $2::TIMESTAMPTZ, $3::TIMESTAMPTZ, $4, 1, 1)', [
    id,
    start,
    end,
    status,
  ]);
  await wh.query("INSERT INTO sync_run_modes VALUES ($1, 'full')", [id]);
  if (offsetMs !== null)
    await wh.query('INSERT INTO sync_run_clocks VALUES ($1, $2, $3::TIMESTAMPTZ)', [id, offsetMs, end]);
}

function call(wh: Warehouse, id: string, at: string, status = 200, quota: number | null = 100) {
  return wh.query(
    "INSERT INTO api_calls VALUES ($1, $2::TIMESTAMPTZ, 'GET', '/v1/fragrances', $3, 1, $4, $5, now())",
    [id, at, status, quota, `${id}-${at}`],
  );
}

/** The last cycle's first service day by the rule's join over every answered call (the reading late-new.ts replaced). */
async function firstDayByJoin(wh: Warehouse): Promise<string | null> {
  const [row] = await wh.query<{ day: string | null }>(
    withCycle(
      CYCLE_END.LAST_DONE,
      `SELECT strftime(timezone('UTC', min(c.service_at)), '%Y-%m-%d') AS day
       FROM calls c JOIN cycle_runs r USING (run_id) WHERE c.status = 200`,
    ),
  );
  return row?.day ?? null;
}

test("a killed run's answered call is on the service day the per-day spend counts it on, in the cycle's days", async () => {
  const wh = await killedRunInCycle();
  expect(await spendOnServiceDay(wh, '2026-01-02')).toEqual({ calls: 1, cents: 1 });
  expect(await spendOnServiceDay(wh, '2026-01-01')).toEqual({ calls: 0, cents: 0 });
  // Before: the killed run's call was left out, and the cycle read on Jan 3 alone (days null).
  expect(await cycleRuns(wh, 'C')).toEqual({
    earlier: 1,
    days: { count: 2, first: '2026-01-02', last: '2026-01-03' },
  });
});

test("the last cycle's first day is that call's service day too; a full run after it opens the next cycle", async () => {
  const wh = await killedRunInCycle();
  const state = await wh.syncState();
  expect(await lastCycle(wh, state.clocks)).toEqual({
    firstDay: '2026-01-02',
    completedAt: '2026-01-03T11:00:00.000Z',
  });
  expect(await firstDayByJoin(wh)).toBe('2026-01-02');
  expect([state.cycleStart, state.lastCompletedRun]).toEqual([null, 'C']);
  expect(await lateNew(wh, state)).toEqual([]);
  await wh.query("INSERT INTO sync_runs VALUES ('D', '2026-01-04T08:00:00Z', NULL, 'running', 0, 0)");
  const open = await wh.syncState();
  expect([open.cycleStart, open.lastCompletedRun]).toEqual(['2026-01-04T08:00:00.000Z', 'C']);
});

test("a later run's first call, by its lower offset, can be the cycle's first service day: as the join places it", async () => {
  const wh = await emptyWarehouse();
  // A (offset +3 h) first answered at 22:30 Jan 1 (Jan 2 01:30 on the service's clock); B's
  // clock stood 3 h behind (offset -3 h): its first call at 01:00 Jan 2 is 22:00 Jan 1 there.
  await run(wh, 'A', '2026-01-01T22:00:00Z', '2026-01-01T23:00:00Z', 'died', H3);
  await call(wh, 'A', '2026-01-01T22:20:00Z', 500);
  await call(wh, 'A', '2026-01-01T22:30:00Z');
  await run(wh, 'B', '2026-01-02T00:50:00Z', '2026-01-02T02:00:00Z', 'completed', -H3);
  await call(wh, 'B', '2026-01-02T01:00:00Z');
  await call(wh, 'B', '2026-01-02T00:55:00Z', 429);
  const state = await wh.syncState();
  expect(await firstDayByJoin(wh)).toBe('2026-01-01');
  expect(await lastCycle(wh, state.clocks)).toEqual({
    firstDay: '2026-01-01',
    completedAt: '2026-01-02T02:00:00.000Z',
  });
});

test("no completed cycle: no first day; a died run's answered call is in the cycle completed after it", async () => {
  const wh = await emptyWarehouse();
  await run(wh, 'A', '2026-01-01T10:00:00Z', '2026-01-01T11:00:00Z', 'died', 0);
  await call(wh, 'A', '2026-01-01T10:10:00Z');
  expect(await lastCycle(wh, (await wh.syncState()).clocks)).toBeNull();
  await run(wh, 'B', '2026-01-02T10:00:00Z', '2026-01-02T11:00:00Z', 'completed', 0);
  await call(wh, 'B', '2026-01-02T10:10:00Z', 402);
  // A, answered, is in B's cycle: its first call is the cycle's.
  expect(await lastCycle(wh, (await wh.syncState()).clocks)).toEqual({
    firstDay: '2026-01-01',
    completedAt: '2026-01-02T11:00:00.000Z',
  });
});

/** The quota on its service day by the rule's join over the whole ledger (the reading ledger-day.ts narrowed). */
async function quotaByJoin(wh: Warehouse) {
  const [row] = await wh.query<{ remaining: number; sent: string; day: string; offset_ms: number }>(
    withServiceCalls(`SELECT CAST(min(q.quota_remaining) AS DOUBLE) AS remaining,
        strftime(timezone('UTC', max(q."at")), '%Y-%m-%dT%H:%M:%SZ') AS sent,
        strftime(CAST(any_value(last.s) AS DATE), '%Y-%m-%d') AS day,
        CAST(any_value(last.offset_ms) AS DOUBLE) AS offset_ms
      FROM (SELECT * FROM calls WHERE quota_remaining IS NOT NULL) q,
        (SELECT service_at AS s, offset_ms FROM calls WHERE quota_remaining IS NOT NULL
         ORDER BY service_at DESC LIMIT 1) last
      WHERE q.service_at >= CAST(CAST(last.s AS DATE) AS TIMESTAMPTZ)
      HAVING count(*) > 0`),
  );
  return row ? { remaining: row.remaining, sent: row.sent, day: row.day, offsetMs: row.offset_ms } : null;
}

test("the quota's day is the newest call's on the service's clock, not this machine's; its low that day's", async () => {
  const wh = await emptyWarehouse();
  expect(await ledgerQuota(wh)).toBeNull();
  // Before any run's offset (0): Dec 31 on both clocks.
  await call(wh, 'O', '2025-12-31T12:00:00Z', 200, 10);
  // A (+6 h): Jan 2 01:00 and 02:00 on the service's clock; B (-6 h), later here, Jan 1 there.
  await run(wh, 'A', '2026-01-01T18:00:00Z', '2026-01-01T20:30:00Z', 'died', 6 * 3_600_000);
  await call(wh, 'A', '2026-01-01T19:00:00Z', 200, 50);
  await call(wh, 'A', '2026-01-01T20:00:00Z', 200, 40);
  await call(wh, 'A', '2026-01-01T20:10:00Z', 500, null);
  await run(wh, 'B', '2026-01-01T21:00:00Z', '2026-01-01T23:00:00Z', 'completed', -6 * 3_600_000);
  await call(wh, 'B', '2026-01-01T21:30:00Z', 200, 900);
  await call(wh, 'B', '2026-01-01T22:00:00Z', 200, 880);
  await call(wh, 'B', '2026-01-01T22:30:00Z', 402, null);
  const expected = {
    remaining: 40,
    sent: '2026-01-01T20:00:00Z',
    day: '2026-01-02',
    offsetMs: 6 * 3_600_000,
  };
  expect(await quotaByJoin(wh)).toEqual(expected);
  const q = await ledgerQuota(wh);
  expect(q && { remaining: q.remaining, sent: q.sent, day: q.day }).toEqual({
    remaining: 40,
    sent: '2026-01-01T20:00:00Z',
    day: '2026-01-02',
  });
  // The service's day ends at 18:00 here by A's offset.
  expect(q?.resetAt.toISOString()).toBe('2026-01-02T18:00:00.000Z');
  // C (0): later on both clocks, on Jan 2 there, after A's calls: the day's low takes both runs' calls.
  await run(wh, 'C', '2026-01-02T09:00:00Z', '2026-01-02T10:00:00Z', 'completed', 0);
  await call(wh, 'C', '2026-01-02T09:30:00Z', 200, 45);
  const next = await ledgerQuota(wh);
  expect(await quotaByJoin(wh)).toEqual({ ...expected, sent: '2026-01-02T09:30:00Z', offsetMs: 0 });
  expect(next && { remaining: next.remaining, sent: next.sent, day: next.day }).toEqual({
    remaining: 40,
    sent: '2026-01-02T09:30:00Z',
    day: '2026-01-02',
  });
  expect(next?.resetAt.toISOString()).toBe('2026-01-03T00:00:00.000Z');
});
