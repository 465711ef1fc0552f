import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator, SimulatorVariant } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from '../helpers/ground-truth.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The "done when", for each driver: a full sync of a generated catalogue gives every
 * contract table exactly the service's ground truth, and api_calls exactly its ledger; with
 * 5% injected faults too, and against other legal readings of the spec. With BullMQ, two
 * `fragsync worker` processes share the work with the sync's own worker.
 */

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

async function withSim<T>(
  opts: { fragrances: number; variant?: Partial<SimulatorVariant> },
  fn: (sim: Simulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ fragrances: opts.fragrances, seed: 7, variant: opts.variant });
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

async function quarantined(dbPath: string): Promise<number> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const [r] = await wh.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM quarantine');
    return Number(r?.n ?? 0);
  } finally {
    await wh.close();
  }
}

/**
 * The edge reading reached the warehouse (so "exact" above was not vacuous): entries only the
 * overflow tables can hold, scores on another scale, empty strings, walks at the service's
 * page size, and nothing flagged (no stated range was broken).
 */
async function expectEdges(dbPath: string, pageSize: number): Promise<void> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const [r] = await wh.query<Record<string, number>>(
      `SELECT (SELECT count(*) FROM similar_fragrances_overflow)::INTEGER AS similar,
         (SELECT count(*) FROM wearing_labels_overflow)::INTEGER AS labels,
         (SELECT count(*) FROM chart_entries_overflow)::INTEGER AS ties,
         (SELECT count(*) FROM chart_entries WHERE score > 5)::INTEGER AS popularity,
         (SELECT count(*) FROM fragrances WHERE perfumer_slug = '')::INTEGER AS no_perfumer,
         (SELECT count(*) FROM reviews WHERE text = '')::INTEGER AS empty_texts,
         (SELECT count(*) FROM sync_walks WHERE page_size <> ?)::INTEGER AS other_sizes,
         (SELECT count(*) FROM sync_walks WHERE page_size = ?)::INTEGER AS walks,
         (SELECT count(*) FROM value_flags)::INTEGER AS flagged`,
      [pageSize, pageSize],
    );
    const n = Object.fromEntries(Object.entries(r!).map(([k, v]) => [k, Number(v)]));
    expect(n, JSON.stringify(n)).toMatchObject({ other_sizes: 0, flagged: 0 });
    for (const k of ['similar', 'labels', 'ties', 'popularity', 'no_perfumer', 'empty_texts', 'walks'])
      expect(n[k], k).toBeGreaterThan(0);
  } finally {
    await wh.close();
  }
}

/** Other legal readings of the spec, apart from the simulator's defaults, the edge reading among them. */
const VARIANTS: { name: string; variant: Partial<SimulatorVariant>; billed: boolean }[] = [
  {
    name: 'opaque ids, text errors, extra fields, reversed lists, unbilled failures',
    variant: {
      idStyle: 'opaque',
      errorBody: 'text',
      extraFields: true,
      listOrder: 'reverse',
      billFailedCalls: false,
      bad400Code: 'VALIDATION_ERROR',
    },
    billed: false,
  },
  {
    name: 'slug ids, JSON errors, extra fields, shuffled lists, billed failures',
    variant: {
      idStyle: 'slug',
      errorBody: 'json',
      extraFields: true,
      listOrder: 'shuffled',
      billFailedCalls: true,
      bad400Code: 'BAD_REQUEST',
    },
    billed: true,
  },
  {
    name: 'the edge reading: pages of 7 whatever is asked, popularity scores, empty strings, tied ranks, repeated entries, opaque ids, extra fields',
    variant: {
      idStyle: 'opaque',
      errorBody: 'json',
      extraFields: true,
      listOrder: 'id',
      billFailedCalls: true,
      bad400Code: 'BAD_REQUEST',
      pageCap: 7,
      edgeValues: true,
    },
    billed: true,
  },
];

describe.each([inProcess, bullmq])('full sync, $name', (driver) => {
  const file = (name: string) => join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-${name}.duckdb`);

  it('mirrors the catalogue exactly, at the minimum cost, with a ledger equal to the service', async () => {
    await withSim({ fragrances: 150 }, async (sim) => {
      const dbPath = file('plain');
      const summary = await driver.sync(sim, dbPath);
      expect(summary.status).toBe('completed');
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ledger = sim.ledger();
      const ours = await warehouseLedger(dbPath);
      expect(ours.calls).toBe(ledger.calls);
      expect(ours.billable).toBe(ledger.cents);
      expect(summary.costRatio).not.toBeNull();
      expect(summary.costRatio as number).toBeLessThanOrEqual(1.05);
      expect(await quarantined(dbPath)).toBe(0);
      expect(summary.quarantined).toEqual([]);
    });
  });

  it('stays exact with 5% injected faults: 500s, connection resets, truncated bodies', async () => {
    await withSim({ fragrances: 120 }, async (sim) => {
      sim.setFaults({ errorRate: 0.02, resetRate: 0.02, truncateRate: 0.01 });
      const dbPath = file('faults');
      const summary = await driver.sync(sim, dbPath, { concurrency: '16' });
      expect(summary.status).toBe('completed');
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ledger = sim.ledger();
      const ours = await warehouseLedger(dbPath);
      expect(summary.failedCalls).toBeGreaterThan(0);
      // Every failed call is in the per-status count: 500s, and resets as "no answer" (0).
      expect(summary.failedByStatus.reduce((n, f) => n + f.calls, 0)).toBe(summary.failedCalls);
      expect(summary.failedByStatus.map((f) => f.status)).toContain(500);
      expect(ours.calls).toBe(ledger.calls);
      expect(ours.billable).toBe(ledger.cents);
      expect(await quarantined(dbPath)).toBe(0);
      expect(summary.quarantined).toEqual([]);
    });
  });

  it.each(VARIANTS)('is exact against another legal reading: $name', async ({ name, variant, billed }) => {
    await withSim({ fragrances: 100, variant }, async (sim) => {
      sim.setFaults({ errorRate: 0.03 });
      const dbPath = file(`variant-${VARIANTS.findIndex((v) => v.name === name)}`);
      const summary = await driver.sync(sim, dbPath);
      expect(summary.status).toBe('completed');
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ledger = sim.ledger();
      const wh = await Warehouse.open(dbPath, { readOnly: true });
      const [ok] = await wh.query<{ cents: number }>(
        'SELECT sum(cost_cents)::INTEGER AS cents FROM api_calls WHERE status = 200',
      );
      const [all] = await wh.query<{ cents: number; calls: number; failed: number }>(
        `SELECT sum(cost_cents)::INTEGER AS cents, count(*)::INTEGER AS calls,
           count(*) FILTER (WHERE status <> 200)::INTEGER AS failed FROM api_calls`,
      );
      await wh.close();
      expect(Number(all?.calls)).toBe(ledger.calls);
      expect(Number(all?.failed)).toBeGreaterThan(0);
      // A service that bills failed calls bills every row; one that does not, only the 200s.
      expect(Number(billed ? all?.cents : ok?.cents)).toBe(ledger.cents);
      // The summary says both: spent on answered calls, the failed calls' list price apart.
      expect(summary.failedCalls).toBe(Number(all?.failed));
      expect(billed ? summary.cents + summary.failedCents : summary.cents).toBe(ledger.cents);
      // The ratio either way: what this service billed over the cheapest sync is one of them.
      const ratio = billed ? summary.costRatioIfFailedBilled : summary.costRatio;
      expect(ratio).toBeCloseTo(ledger.cents / summary.minimum.cents, 9);
      expect(formatSummary(summary)).toMatch(
        /cost ratio: \d\.\d{3} \(\d\.\d{3} if the service bills failed calls\)/,
      );
      // Against the cheapest sync of this service, at the page size it serves (1.746 with
      // pages of 7 when the minimum assumed 50 a page).
      expect(summary.costRatio as number).toBeLessThanOrEqual(1.05);
      expect(await quarantined(dbPath)).toBe(0);
      expect(summary.quarantined).toEqual([]);
      if (variant.edgeValues) await expectEdges(dbPath, variant.pageCap!);
    });
  });
});
