import { describe, expect, inject, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';
import {
  callsWithStatus,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  queryWarehouse,
} from '../helpers/governed.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * No page bought twice after a stop (issue 14 item 7). A sync stopped in the middle of its
 * review walks (the balance runs out: 402; or the quota, with --no-wait) and resumed after a
 * top-up (or a raised quota) pays exactly what one clean sync pays: the service's record of
 * billed requests holds no (endpoint, params) twice, the mirror is exact and api_calls equals
 * the ledger, on both drivers. Fifteen fragrances have seven or more pages of reviews; the
 * balance or quota runs out right after page 1 of the first of them (Simulator.drainAfter), so
 * the stop lands inside that walk on every run: the test checks that it did. (Half the cents or
 * half the calls stopped the run wherever its calls in flight had got to: the clean-clone CI
 * run once saw no review walk part-way.)
 */

const files = governedFiles();
const LONG_WALKS = 15;

async function start(o: { balanceCents?: number; dailyQuota?: number } = {}): Promise<Simulator> {
  const sim = await startSimulator({ fragrances: 40, seed: 77, recordPaid: true, ...o });
  for (const f of sim.groundTruth().fragrances.slice(0, LONG_WALKS)) sim.addReviews(f.id, 300);
  return sim;
}

/** A quota recheck (src/sync/recheck.ts): the one request a sync may repeat, by design. */
const RECHECK = 'GET /v1/accords?page=1&limit=1';
const paid = (sim: Simulator) => sim.paidRequests().filter((r) => r !== RECHECK);

/** Requests the service billed more than once, with how often (rechecks apart). */
function boughtTwice(sim: Simulator): [string, number][] {
  const seen = new Map<string, number>();
  for (const r of paid(sim)) seen.set(r, (seen.get(r) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1);
}

/** The balance or quota runs out right after page 1 of the first long review walk; its mark. */
function stopInWalk(sim: Simulator, what: 'balance' | 'quota'): string {
  const id = sim.groundTruth().fragrances[0]!.id;
  sim.drainAfter((r) => r.startsWith(`GET /v1/fragrances/${id}/reviews?page=1&`), what);
  return `reviews:${id}`;
}

/** Review walks stored part-way by the stopped run (their walk marks, not done). */
async function partialWalks(dbPath: string): Promise<string[]> {
  const rows = await queryWarehouse<{ walk: string }>(
    dbPath,
    "SELECT walk FROM sync_walks WHERE walk LIKE 'reviews:%' AND NOT done",
  );
  return rows.map((r) => r.walk);
}

async function withDriver<T>(driver: 'memory' | 'bullmq', fn: (flags: Record<string, string>) => Promise<T>) {
  const flags: Record<string, string> = { config: files.config, concurrency: '4' };
  if (driver === 'memory') return fn(flags);
  const redisUrl = inject('redisUrl');
  const prefix = uniquePrefix('page-twice');
  try {
    return await fn({ ...flags, redis: redisUrl, 'queue-prefix': prefix });
  } finally {
    await cleanPrefix(redisUrl, prefix);
  }
}

/** Walks a stopped run left with pages kept (accords, brand:<slug>; not reviews:<id>). */
async function keptWalks(dbPath: string): Promise<string[]> {
  const rows = await queryWarehouse<{ walk: string }>(
    dbPath,
    'SELECT walk FROM sync_walks WHERE kept_pages IS NOT NULL AND NOT done ORDER BY walk',
  );
  return rows.map((r) => r.walk);
}

/** Paid calls and cents of a clean, uninterrupted sync of the same catalogue. */
async function cleanRun(driver: 'memory' | 'bullmq'): Promise<{ paid: number; cents: number }> {
  const sim = await start();
  try {
    const s = await withDriver(driver, (flags) =>
      runTestSync({ baseUrl: sim.url, dbPath: files.path(`clean-${driver}.duckdb`), flags }),
    );
    expect(s.status).toBe('completed');
    expect(boughtTwice(sim)).toEqual([]);
    expect(sim.paidRequests()).not.toContain(RECHECK);
    return { paid: sim.paidRequests().length, cents: sim.ledger().cents };
  } finally {
    await sim.close();
  }
}

describe.each(['memory', 'bullmq'] as const)('no page bought twice after a stop (%s driver)', (driver) => {
  let clean: { paid: number; cents: number };

  async function stopAndResume(
    name: string,
    sim: Simulator,
    resumeFlags: Record<string, string | boolean>,
    stoppedIn: string,
    between: () => void,
  ): Promise<[SyncSummary, SyncSummary, string]> {
    const dbPath = files.path(`${name}-${driver}.duckdb`);
    const [first, second] = await withDriver(driver, async (flags) => {
      const a = await runTestSync({ baseUrl: sim.url, dbPath, flags: { ...flags, ...resumeFlags } });
      expect(await partialWalks(dbPath)).toContain(stoppedIn);
      between();
      const b = await runTestSync({ baseUrl: sim.url, dbPath, flags: { ...flags, ...resumeFlags } });
      return [a, b] as const;
    });
    return [first, second, dbPath];
  }

  it('402 in the middle of the review walks, top-up, resume: the pages bought once, exact', async () => {
    clean ??= await cleanRun(driver);
    const sim = await start();
    try {
      const walk = stopInWalk(sim, 'balance');
      const [first, second, dbPath] = await stopAndResume('topup', sim, {}, walk, () => sim.topUp(1e6));
      expect(first.status).toBe('payment_required');
      expect(second.status).toBe('completed');
      expect(callsWithStatus(sim, 402)).toBeGreaterThanOrEqual(1);
      expect(boughtTwice(sim)).toEqual([]);
      expect(sim.paidRequests().length).toBe(clean.paid);
      expect(sim.ledger().cents).toBe(clean.cents);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  }, 180_000);

  it('the quota out in the middle of the review walks with --no-wait, raised, resume: bought once, exact', async () => {
    clean ??= await cleanRun(driver);
    // A quota the whole run fits in (so that 1,000,000 is a raise); the pin spends it.
    const sim = await start({ dailyQuota: clean.paid });
    try {
      const walk = stopInWalk(sim, 'quota');
      const [first, second, dbPath] = await stopAndResume('nowait', sim, { 'no-wait': true }, walk, () =>
        sim.setLimit(1_000_000),
      );
      expect(first.status).toBe('quota_exhausted');
      expect(second.status).toBe('completed');
      expect(boughtTwice(sim)).toEqual([]);
      expect(paid(sim).length).toBe(clean.paid);
      // With Redis the first run's pause outlives it: the second checks it once, at 1 cent.
      const rechecks = sim.paidRequests().length - paid(sim).length;
      expect(rechecks).toBe(driver === 'bullmq' ? 1 : 0);
      expect(sim.ledger().cents).toBe(clean.cents + rechecks);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  }, 180_000);

  it.each(['accords', 'brand'] as const)(
    'a 402 inside the %s walk, resumed: no page bought twice, exact',
    async (which) => {
      // Three items a page whatever is asked: the accord list is 30 pages, a brand's catalogue
      // several. The balance runs out right after page 1 of one (the pages after it, asked for
      // side by side once page 1 has answered, are refused), then it is topped up again. Each
      // walk is stopped in a run of its own: after a stop in the accord list, a brand's
      // catalogue may already have been read whole in the same run, so a second stop on it in
      // the next run would never come.
      const sim = await startSimulator({
        fragrances: 40,
        seed: 78,
        recordPaid: true,
        variant: { pageCap: 3 },
      });
      try {
        const truth = sim.groundTruth();
        const brand = truth.brands.find((b) => (truth.brandCatalogues[b.slug]?.length ?? 0) > 6)!.slug;
        const [stop, walk] =
          which === 'accords'
            ? [`GET /v1/accords?page=1&`, 'accords']
            : [`GET /v1/brands/${brand}/fragrances?page=1&`, `brand:${brand}`];
        const dbPath = files.path(`walks-${which}-${driver}.duckdb`);
        const runs: { status: string; kept: string[] }[] = [];
        await withDriver(driver, async (flags) => {
          for (const s of [stop, null]) {
            sim.topUp(1e9);
            if (s) sim.drainAfter((r) => r.startsWith(s));
            const { status } = await runTestSync({ baseUrl: sim.url, dbPath, flags });
            runs.push({ status, kept: await keptWalks(dbPath) });
          }
        });
        expect(runs.map((r) => r.status)).toEqual(['payment_required', 'completed']);
        expect(runs[0]!.kept).toContain(walk);
        expect(runs[1]!.kept).toEqual([]);
        expect(boughtTwice(sim)).toEqual([]);
        await expectMirror(sim, dbPath);
        await expectLedgerEqual(sim, dbPath);
      } finally {
        await sim.close();
      }
    },
    180_000,
  );
});
