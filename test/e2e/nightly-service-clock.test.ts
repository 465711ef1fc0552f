import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/plan/format.ts';
import { buildPlan } from '../../src/plan/plan.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import type { GroundTruth } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { expectExact } from '../helpers/exact.ts';
import { testConfig } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A day passes at the service, not on this machine: a full sync, POST advance-day (the
 * service's clock moves a day on, src/simulator/account.ts), then the nightly at once, with
 * nothing aged by hand. It judges ages on the service's clock (the offset the walks' Date
 * headers showed, src/sync/fetch-stage.ts retime), so the day's score moves, new reviews,
 * reformulations and chart snapshots are due and the mirror equals the service's truth.
 * Each run keeps its offset (sync_run_clocks): a second nightly the same service day finds
 * the daily datasets fresh and buys none of them again, and `plan`, which sends nothing,
 * judges ages on the service's clock as the last run saw it.
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

const DAY_MS = 86_400_000;

/** Fragrances whose score, review count or similar list the day changed. */
function moved(before: GroundTruth, after: GroundTruth): number {
  const old = new Map(before.fragrances.map((f) => [f.id, JSON.stringify(f)]));
  return after.fragrances.filter((f) => old.has(f.id) && old.get(f.id) !== JSON.stringify(f)).length;
}

async function advanceDay(sim: Simulator): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/advance-day`, { method: 'POST', body: '{}' });
  expect(res.status).toBe(200);
}

/** The latest run's calls per endpoint template, from api_calls. */
async function lastRunCalls(dbPath: string): Promise<Record<string, number>> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const rows = await wh.query<{ endpoint: string; n: number }>(
      `SELECT endpoint, count(*)::INTEGER AS n FROM api_calls
       WHERE run_id = (SELECT run_id FROM sync_runs ORDER BY started_at DESC LIMIT 1) GROUP BY endpoint`,
    );
    return Object.fromEntries(rows.map((r) => [r.endpoint, Number(r.n)]));
  } finally {
    await wh.close();
  }
}

describe.each([inProcess, bullmq])('nightly on the service clock, $name', (driver) => {
  it('full sync, advance-day over HTTP, two nightlies, a capped one, plan: all on the service clock', async () => {
    const sim = await startSimulator({ fragrances: 120, seed: 23 });
    const dbPath = join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-clock.duckdb`);
    try {
      const full = await driver.sync(sim, dbPath);
      expect(full.status).toBe('completed');
      const fullCents = sim.ledger().cents;
      const before = sim.groundTruth();
      await advanceDay(sim);
      const after = sim.groundTruth();
      expect(after.serviceDate > before.serviceDate).toBe(true);
      // The day moved profiles the nightly can only find by refreshing what is due.
      expect(moved(before, after)).toBeGreaterThan(0);
      const charts = (t: GroundTruth) => JSON.stringify(t.charts);
      expect(charts(after)).not.toBe(charts(before));

      const nightly = await driver.sync(sim, dbPath);
      expect(nightly.status).toBe('completed');
      expect(nightly.mode).not.toBe('full');
      await expectExact(sim, dbPath);
      expect((await lastRunCalls(dbPath))['/v1/fragrances/{id}']).toBeGreaterThan(100);

      // The same service day: every daily dataset was fetched on it, so nothing is due but
      // the walks (before each run's offset was kept, every profile was bought again).
      const again = await driver.sync(sim, dbPath);
      expect(again.status).toBe('completed');
      const calls = await lastRunCalls(dbPath);
      expect(calls['/v1/fragrances/{id}'] ?? 0).toBe(0);
      expect(calls['/v1/fragrances/{id}/reviews'] ?? 0).toBe(0);
      await expectExact(sim, dbPath);

      // Another day, a nightly capped well below it, then plan (no request; this machine's
      // clock is a day behind what it must judge by).
      await advanceDay(sim);
      const cap = { 'max-cents': String(Math.floor(fullCents * 0.05)) };
      const capped = await driver.sync(sim, dbPath, cap);
      expect(capped.status).toBe('budget_exhausted');
      const wh = await Warehouse.open(dbPath, { readOnly: true });
      const state = await wh.syncState();
      // The freshness view judges ages the same way.
      const [view] = await wh.query<{ stale: number }>(
        "SELECT stale FROM freshness WHERE entity = 'fragrance' AND dataset = 'profile'",
      );
      await wh.close();
      expect(Number(view?.stale)).toBeGreaterThan(50);
      const plan = (flags = {}) => buildPlan(state, testConfig({ baseUrl: sim.url, dbPath, flags }), null);
      const uncapped = plan();
      expect(uncapped.kind).toBe('nightly');
      expect(uncapped.clock.offsetMs).toBeGreaterThan(2 * DAY_MS - 60_000);
      expect(uncapped.clock.offsetMs).toBeLessThan(2 * DAY_MS + 60_000);
      expect(formatPlan(uncapped)).toContain("ages on the service's clock as run");
      // The cap left most profiles a day old on the service's clock (none on this machine's):
      // the plan owes them, and under the same cap says they stay older than their policy.
      const profiles = (p: ReturnType<typeof plan>) => ({
        due: p.nightly?.refresh.find((r) => r.entity === 'fragrance' && r.dataset === 'profile')?.keys.length,
        older: p.nightly?.after.find((a) => a.entity === 'fragrance' && a.dataset === 'profile')?.overPolicy,
      });
      expect(profiles(uncapped).due).toBeGreaterThan(50);
      expect(profiles(plan(cap)).older).toBeGreaterThan(50);
      // The capped run's summary says plainly what is owed: what plan says, on the same clock.
      expect(formatSummary(capped)).toContain(
        `still owed: ${uncapped.cost.calls} calls, ${uncapped.cost.cents} cents ($${(uncapped.cost.cents / 100).toFixed(2)}) for what is due`,
      );
    } finally {
      await sim.close();
    }
    // Five syncs, each with two worker processes on the BullMQ driver, on a shared machine.
  }, 480_000);
});
