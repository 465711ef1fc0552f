import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryJson } from '../../src/cli/summary-json.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { expectExact } from '../helpers/exact.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A backfill the quota spreads over three service days, each run `--no-wait`, with
 * `POST /_sim/advance-day` between runs (the README's way of trying the nightly): this
 * machine's day never changes, the service's does. Each run reads the lists again when the
 * service's day moved since they were read (src/sync/walk-day.ts), so what appeared upstream
 * meanwhile is in the mirror when the cycle completes; what changed in items read on an earlier
 * service day is the nightly's work, and the summary of the run that completes says so in one
 * line. The nightly after it makes the mirror exact.
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

async function advanceDay(sim: Simulator): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/advance-day`, { method: 'POST', body: '{}' });
  expect(res.status).toBe(200);
}

/** Fragrance ids the warehouse mirrors. */
async function mirrored(dbPath: string): Promise<Set<string>> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    return new Set((await wh.query<{ id: string }>('SELECT id FROM fragrances')).map((r) => r.id));
  } finally {
    await wh.close();
  }
}

describe.each([inProcess, bullmq])('a backfill over several service days, $name', (driver) => {
  it('reads the lists again on each new service day and says what comes with the next nightly', async () => {
    const sim = await startSimulator({ fragrances: 150, seed: 41, dailyQuota: 320 });
    const dbPath = join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-days.duckdb`);
    const flags = { 'no-wait': 'true', 'reserve-percent': '10' };
    try {
      const first = await driver.sync(sim, dbPath, flags);
      expect(first.status).toBe('quota_exhausted');
      const days = [sim.groundTruth().serviceDate];
      await advanceDay(sim);
      const second = await driver.sync(sim, dbPath, flags);
      expect(second.status).toBe('quota_exhausted');
      days.push(sim.groundTruth().serviceDate);
      await advanceDay(sim);
      const third = await driver.sync(sim, dbPath, flags);
      days.push(sim.groundTruth().serviceDate);
      expect(third.status).toBe('completed');
      expect(third.mode).toBe('full');

      // Every fragrance the service lists today was found and read by the cycle (the walks
      // were read again on days 2 and 3: before, the day-1 list was the cycle's only one).
      const truth = sim.groundTruth();
      const have = await mirrored(dbPath);
      const missing = truth.fragrances.map((f) => f.id).filter((id) => !have.has(id));
      expect(missing).toEqual([]);

      const line = `read over 3 service days (${days[0]} .. ${days[2]}): what changed meanwhile comes with the next nightly`;
      expect(formatSummary(third)).toContain(line);
      expect(JSON.parse(summaryJson(third)).serviceDays).toEqual({ count: 3, first: days[0], last: days[2] });
      // A run that read on one service day says nothing of the kind.
      expect(formatSummary(first)).not.toContain('service days');

      // The nightly, the same service day (the account's owner raised the quota for it: a
      // day's quota is what the backfill was short of), refreshes what earlier days read: exact.
      sim.setLimit(3000);
      const nightly = await driver.sync(sim, dbPath, flags);
      expect(nightly.status).toBe('completed');
      expect(nightly.mode).toBe('incremental');
      expect(nightly.serviceDays).toBeNull();
      await expectExact(sim, dbPath);
    } finally {
      await sim.close();
    }
  }, 480_000);
});
