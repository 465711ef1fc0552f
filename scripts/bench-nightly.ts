/**
 * Nightly benchmark (`npm run bench:nightly`, issue 15): a simulated catalogue of
 * BENCH_FRAGRANCES (default 1,500) fragrances, a full sync, one simulated day of the
 * simulator's default change model (docs/simulator.md: 1% new, one from a new house, one
 * discontinued, score drift, new reviews, reshuffled charts), then the nightly sync. Prints
 * the nightly's cents divided by the full sync's beside the issue's target (<= 0.45) and the
 * floor of an exact nightly on such a day (every profile and every first review page, since
 * scores and reviews give no cheaper signal), and whether the mirror equals the simulator's
 * truth after each run.
 *
 * Also a capped nightly on a copy of the warehouse after the full sync, the same day, with
 * --max-cents at 5% of the full sync's cents (BENCH_CAP_SHARE): whether every new fragrance
 * is complete, every discontinued one gone, and what `plan` says is still owed after it.
 * BENCH_SEED (default 1) picks the catalogue. The service runs in this process; the cents
 * are the service's own ledger. All of it once per reading of similar lists
 * (BENCH_SIMILAR_LISTS, default 'fixed,live': older lists fixed at release, or recomputed
 * live, docs/simulator.md), with the nightly's calls and cents per endpoint, and a summary.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENDPOINTS } from '../src/domain/endpoints.ts';
import { buildPlan } from '../src/plan/plan.ts';
import {
  DEFAULT_CHANGE_MODEL,
  startSimulator,
  type SimilarLists,
  type Simulator,
} from '../src/simulator/index.ts';
import { Warehouse } from '../src/warehouse/warehouse.ts';
import { diffTables, truthTables, warehouseTables } from '../test/helpers/ground-truth.ts';
import { dayDiff, newItemsIncomplete, removedStillThere } from '../test/helpers/nightly.ts';
import { runTestSync, testConfig } from '../test/helpers/sync.ts';

const FRAGRANCES = Number(process.env.BENCH_FRAGRANCES ?? 1_500);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const CAP_SHARE = Number(process.env.BENCH_CAP_SHARE ?? 0.05);
const TARGET = 0.45;
/** Both readings of when older similar lists take in a release (docs/simulator.md), default first. */
const MODELS: SimilarLists[] = (process.env.BENCH_SIMILAR_LISTS ?? 'fixed,live').split(',') as SimilarLists[];

async function exactness(sim: Simulator, dbPath: string): Promise<string> {
  const truth = sim.groundTruth();
  const diff = diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate));
  const tables = Object.keys(diff);
  return tables.length === 0 ? 'exact' : `NOT EXACT (tables differing: ${tables.join(', ')})`;
}

/** One sync; what the service billed it (its ledger before and after), and the run's status. */
async function sync(sim: Simulator, dbPath: string, flags: Record<string, string> = {}) {
  const before = sim.ledger();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const summary = await runTestSync({ baseUrl: sim.url, dbPath, flags });
  const cpu = process.cpuUsage(cpu0);
  const after = sim.ledger();
  return {
    status: summary.status,
    byEndpoint: summary.byEndpoint,
    calls: after.calls - before.calls,
    cents: after.cents - before.cents,
    seconds: (performance.now() - t0) / 1000,
    // This process runs the sync and the service: wall time is the shared machine's, CPU
    // seconds (both together) and the peak RSS so far are what a loaded machine changes less.
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

async function planOwed(sim: Simulator, dbPath: string) {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    // This machine's now: the plan judges ages on the service's clock the last run recorded.
    const plan = buildPlan(await wh.syncState(), testConfig({ baseUrl: sim.url, dbPath }), null);
    return { kind: plan.kind, calls: plan.cost.calls, cents: plan.cost.cents };
  } finally {
    await wh.close();
  }
}

/** One model's days: a full sync, the day, the nightly, and the capped nightly on a copy. */
async function oneModel(dir: string, similarLists: SimilarLists): Promise<{ ratio: number; exact: string }> {
  const sim = await startSimulator({ fragrances: FRAGRANCES, seed: SEED, changeModel: { similarLists } });
  try {
    console.log(`\n=== similar lists ${similarLists} (change model similarLists: '${similarLists}') ===`);
    const db = join(dir, `nightly-${similarLists}.duckdb`);
    const full = await sync(sim, db);
    console.log(
      `day 1, full sync: ${full.status}, ${full.calls} calls, ${full.cents} cents, ${full.seconds.toFixed(1)} s, ${full.cpuSeconds.toFixed(1)} CPU s, peak RSS ${full.maxRssMb.toFixed(0)} MB; ${await exactness(sim, db)}`,
    );
    const capped = join(dir, `capped-${similarLists}.duckdb`);
    await copyFile(db, capped);
    if (existsSync(`${db}.wal`)) await copyFile(`${db}.wal`, `${capped}.wal`);

    const before = sim.groundTruth();
    sim.advanceDay();
    const after = sim.groundTruth();
    const day = dayDiff(before, after);
    const accords = new Map(before.fragrances.map((f) => [f.id, JSON.stringify(f.accords)]));
    const kept = after.fragrances.filter((f) => accords.get(f.id) === JSON.stringify(f.accords));
    const entered = kept.filter((f) => after.similar[f.id]?.some((e) => day.added.includes(e.id))).length;
    console.log(
      `the day: ${day.added.length} new (${day.newBrands.length} from a new house), ` +
        `${day.removed.length} discontinued, ${after.fragrances.length} live fragrances; ` +
        `${entered} older lists (not reformulated) took in a release`,
    );

    const nightly = await sync(sim, db);
    const ratio = nightly.cents / full.cents;
    const floorCents =
      after.fragrances.length * (ENDPOINTS.getFragrance.costCents + ENDPOINTS.getReviews.costCents);
    const exact = await exactness(sim, db);
    console.log(
      `day 2, nightly: ${nightly.status}, ${nightly.calls} calls, ${nightly.cents} cents, ${nightly.seconds.toFixed(1)} s, ${nightly.cpuSeconds.toFixed(1)} CPU s (${((100 * nightly.cpuSeconds) / full.cpuSeconds).toFixed(0)}% of the full sync's), peak RSS ${nightly.maxRssMb.toFixed(0)} MB; ${exact}`,
    );
    console.log(
      `  nightly / full = ${ratio.toFixed(3)}   target <= ${TARGET} ${ratio <= TARGET ? '(met)' : '(NOT MET)'}   ` +
        `floor ~${(floorCents / full.cents).toFixed(3)} (every profile and every first review page: ${floorCents} cents)`,
    );
    for (const e of nightly.byEndpoint)
      console.log(
        `    ${e.endpoint.padEnd(36)} ${String(e.calls).padStart(6)} calls ${String(e.cents).padStart(6)} cents`,
      );

    const cap = Math.max(1, Math.floor(full.cents * CAP_SHARE));
    const run = await sync(sim, capped, { 'max-cents': String(cap) });
    const incomplete = await newItemsIncomplete(capped, after, day);
    const left = await removedStillThere(capped, after.serviceDate, day);
    const owed = await planOwed(sim, capped);
    console.log(
      `capped nightly (--max-cents ${cap}, ${CAP_SHARE * 100}% of the full sync): ${run.status}, ${run.calls} calls, ${run.cents} cents`,
    );
    console.log(
      `  every new fragrance complete: ${Object.keys(incomplete).length === 0 ? 'yes' : `NO (tables: ${Object.keys(incomplete).join(', ')})`}`,
    );
    console.log(
      `  every discontinued one gone: ${left.length === 0 ? 'yes' : `NO (${left.length} rows still name one)`}`,
    );
    console.log(`  plan says still owed (${owed.kind}): ${owed.calls} calls, ${owed.cents} cents`);
    return { ratio, exact };
  } finally {
    await sim.close();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fragsync-bench-nightly-'));
  process.env.FRAGSYNC_SPOOL_DIR ??= join(dir, 'spool');
  try {
    console.log(`bench:nightly: ${FRAGRANCES} fragrances, seed ${SEED}`);
    console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}`);
    console.log(
      `load average at start: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    const results: [SimilarLists, { ratio: number; exact: string }][] = [];
    for (const model of MODELS) results.push([model, await oneModel(dir, model)]);
    console.log('\nsummary (nightly cents / full sync cents, target <= 0.45 and exact):');
    for (const [model, r] of results)
      console.log(
        `  similar lists ${model.padEnd(5)}${model === DEFAULT_CHANGE_MODEL.similarLists ? ' (default)' : '          '}: ${r.ratio.toFixed(3)} ${r.ratio <= TARGET ? 'met' : 'NOT MET'}, ${r.exact}`,
      );
    console.log(
      `\nload average at end: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
