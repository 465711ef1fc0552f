import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { formatTick } from '../../src/cli/progress.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { Dataset } from '../../src/domain/entities.ts';
import { CallEstimate, callEstimate } from '../../src/sync/call-estimate.ts';
import { NightlyEstimate } from '../../src/sync/nightly-estimate.ts';
import { emptySyncState } from '../../src/warehouse/state-types.ts';
import type { SyncTick } from '../../src/sync/types.ts';
import { DRIVER_MODES } from '../helpers/drivers.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

const listPage1 = (total: number) =>
  ({ kind: 'walk', walk: 'fragrances@1', page: 1, total, done: true, pageSize: 50 }) as const;
const profile = (key: string) => ({ kind: 'fetched', entity: 'fragrance', key, dataset: 'profile' }) as const;

describe('CallEstimate', () => {
  const WANTED = ['profile', 'similar', 'wearing', 'reviews'] as const;
  const none = { read: {}, listTotal: null };
  const fetched = (key: string, dataset: string) =>
    ({ kind: 'fetched', entity: 'fragrance', key, dataset }) as const;

  it('counts every wanted dataset not yet read, per fragrance, once the list tells the total', () => {
    const e = new CallEstimate(WANTED, none);
    expect(e.total(10)).toBeNull();
    e.observe([listPage1(1000)]);
    expect(e.total(10)).toBe(10 + 1000 * 4);
    e.observe([profile('a'), profile('b'), fetched('a', 'similar')]);
    expect(e.total(20)).toBe(20 + 998 + 999 + 1000 + 1000);
    // Other walks, entities and datasets say nothing of it.
    e.observe([{ kind: 'walk', walk: 'notes@1', page: 1, total: 5000, done: true }]);
    e.observe([
      { kind: 'fetched', entity: 'brand', key: 'x', dataset: 'profile' },
      fetched('a', 'catalogue'),
    ]);
    expect(e.total(20)).toBe(20 + 998 + 999 + 1000 + 1000);
  });

  it('a resumed cycle starts from what it already read', () => {
    const resumed = new CallEstimate(['profile', 'similar'], {
      read: { profile: 600, similar: 500 },
      listTotal: 1000,
    });
    expect(resumed.total(0)).toBe(400 + 500);
  });

  it("a full run under the calls objective has none (nor asks the frontier); under cents, from the frontier's counts; a nightly its plan's", () => {
    const asked: (readonly Dataset[])[] = [];
    const frontier = {
      startingPoint: (datasets: readonly Dataset[]) => {
        asked.push(datasets);
        return { read: { profile: 600 }, listTotal: 1000 };
      },
    };
    const full = { mode: 'full', state: emptySyncState(), started: new Date() } as const;
    const calls = loadConfig({ flags: { objective: 'calls' }, env: {} });
    const cents = loadConfig({ flags: {}, env: {} });
    expect(callEstimate(calls, full, frontier)).toBeNull();
    expect(asked).toEqual([]);
    const e = callEstimate(cents, full, frontier);
    expect(e).toBeInstanceOf(CallEstimate);
    expect(asked).toHaveLength(1);
    const wanted = asked[0]!;
    expect(wanted).toContain('profile');
    expect(e!.total(7)).toBe(7 + wanted.length * 1000 - 600);
    expect(callEstimate(calls, { ...full, mode: 'nightly' }, frontier)).toBeInstanceOf(NightlyEstimate);
  });
});

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

describe('the progress estimate of a real full sync', () => {
  it('is within a fifth of the calls made from the first tick after the list total', async () => {
    // 50 ms a call keeps the run several seconds long: a tick a second.
    const sim = await startSimulator({ fragrances: 500, seed: 3, latencyMs: 50 });
    const ticks: SyncTick[] = [];
    try {
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath: join(dir.path, 'estimate.duckdb'),
        onTick: (t) => ticks.push(t),
      });
      expect(summary.status).toBe('completed');
      const estimated = ticks.filter((t) => t.expectedCalls !== null && t.phase !== 'finishing');
      expect(estimated.length).toBeGreaterThanOrEqual(3);
      // The first is early in the run, where the jobs scheduled alone said far less.
      const first = estimated[0] as SyncTick;
      expect(first.calls).toBeLessThan(summary.calls / 2);
      for (const t of estimated) {
        const off = Math.abs((t.expectedCalls as number) - summary.calls) / summary.calls;
        expect(off, `tick at ${t.calls} calls said ${t.expectedCalls} of ${summary.calls}`).toBeLessThan(0.2);
      }
    } finally {
      await sim.close();
    }
  }, 60_000);
});

/** The "of ~N" the progress line shows for a tick. */
const shown = (t: SyncTick): number | null => {
  const m = /of ~(\d+)/.exec(formatTick(t));
  return m ? Number(m[1]) : null;
};

/** A run's warehouse and, on BullMQ, its own queue prefix (the flags that select it). */
function onDriver(bullmq: boolean, name: string) {
  const prefix = bullmq ? uniquePrefix(name) : null;
  return {
    flags: (prefix ? { redis: inject('redisUrl'), 'queue-prefix': prefix } : {}) as Record<string, string>,
    dbPath: join(dir.path, `${name}-${bullmq ? 'bullmq' : 'memory'}.duckdb`),
    clean: async () => (prefix ? cleanPrefix(inject('redisUrl'), prefix) : undefined),
  };
}

describe.each(DRIVER_MODES)('the progress estimate of a real nightly (%s)', (_name, bullmq) => {
  // A nightly after a day on the simulator's clock (advance-day: its default change model, a
  // few new and removed fragrances, reformulations). Within 15% from the first tick: what the
  // plan cannot price is what today's signals owe (similar lists a release or a reformulation
  // moved), about 5-9% of the calls at 300-1,000 fragrances.
  it('is within 15% of the calls made from the first progress line, priced from the plan', async () => {
    const sim = await startSimulator({ fragrances: 500, seed: 5 });
    const { flags, dbPath, clean } = onDriver(bullmq, 'nightly-estimate');
    const ticks: SyncTick[] = [];
    try {
      expect((await runTestSync({ baseUrl: sim.url, dbPath, flags })).status).toBe('completed');
      sim.advanceDay();
      // 80 ms a call keeps the nightly several seconds long: a tick a second.
      sim.setFaults({ latencyMs: 80 });
      const before = sim.ledger().calls;
      const summary = await runTestSync({ baseUrl: sim.url, dbPath, flags, onTick: (t) => ticks.push(t) });
      expect(summary.status).toBe('completed');
      expect(summary.mode).toBe('incremental');
      const made = sim.ledger().calls - before;
      const lines = ticks.filter((t) => t.phase !== 'finishing' && shown(t) !== null);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      // The first line is early, where the jobs let out so far said far less (they grew to
      // the end: 1,954 shown, 2,462 made in one trial).
      expect(lines[0]!.calls).toBeLessThan(made / 3);
      for (const t of lines) {
        const off = Math.abs(shown(t)! - made) / made;
        expect(off, `the line at ${t.calls} calls said of ~${shown(t)}, ${made} made`).toBeLessThan(0.15);
      }
    } finally {
      await sim.close();
      await clean();
    }
  }, 120_000);
});

describe.each(DRIVER_MODES)('the progress estimate of a real run under --max-cents (%s)', (_name, bullmq) => {
  // Both estimates price everything owed; the run stops where the cap does. A nightly with
  // --max-cents 120 showed `calls 65 of ~679 | 87/120 cents` 4 s before it stopped.
  it('says no more than the cap lets the run make, in a nightly and in a full run', async () => {
    const sim = await startSimulator({ fragrances: 300, seed: 11 });
    const { flags: redis, dbPath, clean } = onDriver(bullmq, 'capped-estimate');
    const capped = (cents: number) => cappedRun(sim, dbPath, { ...redis, 'max-cents': String(cents) });
    try {
      // 300 ms a call keeps each capped run several seconds long.
      sim.setFaults({ latencyMs: 300 });
      const full = await capped(200);
      sim.setFaults({ latencyMs: 0 });
      expect((await runTestSync({ baseUrl: sim.url, dbPath, flags: redis })).status).toBe('completed');
      sim.advanceDay();
      sim.setFaults({ latencyMs: 300 });
      const nightly = await capped(120);
      expectWithinCap(full, 200);
      expectWithinCap(nightly, 120);
    } finally {
      await sim.close();
      await clean();
    }
  }, 120_000);
});

describe.each(DRIVER_MODES)(
  'the progress estimate of a real run under a day cap part spent (%s)',
  (_name, bullmq) => {
    // A day cap smaller than the run's: an earlier run spent part of the service's day, and
    // this one may spend only what the day cap leaves, though --max-cents would let it spend more.
    it('says no more than what the day cap leaves buys, under a larger --max-cents', async () => {
      const sim = await startSimulator({ fragrances: 300, seed: 13 });
      const { flags: redis, dbPath, clean } = onDriver(bullmq, 'day-capped-estimate');
      try {
        const first = await runTestSync({ baseUrl: sim.url, dbPath, flags: { ...redis, 'max-cents': '60' } });
        expect(first.status).toBe('budget_exhausted');
        const dayLeft = 200;
        // 400 ms a call keeps the run several seconds long.
        sim.setFaults({ latencyMs: 400 });
        const dayCap = String(sim.ledger().cents + dayLeft);
        const run = await cappedRun(sim, dbPath, {
          ...redis,
          'max-cents': '2000',
          'max-cents-per-day': dayCap,
        });
        expectWithinCap(run, dayLeft);
        for (const t of run.lines) expect(formatTick(t)).toContain(`/${dayLeft} cents (day cap)`);
      } finally {
        await sim.close();
        await clean();
      }
    }, 120_000);
  },
);

/**
 * A run a cent cap ends, with what its progress lines said and the calls it made. Its lines
 * come every quarter second, not every second as in the terminal: the last one is then close
 * to the end of the run (with a line a second, the last of a 3-second nightly of 77 calls came
 * at 37-42 of them on a busy machine, and said 88-95: more than 15% off what it ended at).
 */
async function cappedRun(sim: Simulator, dbPath: string, flags: Record<string, string>) {
  const ticks: SyncTick[] = [];
  const before = sim.ledger().calls;
  const summary = await runTestSync({
    baseUrl: sim.url,
    dbPath,
    flags,
    onTick: (t) => ticks.push(t),
    tickMs: 250,
  });
  expect(summary.status).toBe('budget_exhausted');
  const made = sim.ledger().calls - before;
  const lines = ticks.filter((t) => t.phase !== 'finishing' && shown(t) !== null && t.calls > 0);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  return { made, lines };
}

/**
 * Every line says no more than the `cap` cents the run may spend could buy (no call costs
 * under a cent), and the last one is close: the run's price per call is known by then.
 */
function expectWithinCap({ made, lines }: { made: number; lines: SyncTick[] }, cap: number): void {
  for (const t of lines) {
    const said = `the line at ${t.calls} calls and ${t.cents} cents said of ~${shown(t)}, ${made} made`;
    expect(shown(t), said).toBeLessThanOrEqual(t.calls + cap - t.cents);
  }
  const last = lines.at(-1)!;
  expect(Math.abs(shown(last)! - made) / made, `of ~${shown(last)}, ${made} made`).toBeLessThan(0.15);
}
