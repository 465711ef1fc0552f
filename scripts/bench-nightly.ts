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
 * are the service's own ledger.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENDPOINTS } from '../src/domain/endpoints.ts';
import { buildPlan } from '../src/plan/plan.ts';
import { startSimulator, type Simulator } from '../src/simulator/index.ts';
import { Warehouse } from '../src/warehouse/warehouse.ts';
import { diffTables, truthTables, warehouseTables } from '../test/helpers/ground-truth.ts';
import { ageWarehouse } from '../test/helpers/age-warehouse.ts';
import { dayDiff, newItemsIncomplete, removedStillThere } from '../test/helpers/nightly.ts';
import { runTestSync, testConfig } from '../test/helpers/sync.ts';

const FRAGRANCES = Number(process.env.BENCH_FRAGRANCES ?? 1_500);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const CAP_SHARE = Number(process.env.BENCH_CAP_SHARE ?? 0.05);
const TARGET = 0.45;

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
  const summary = await runTestSync({ baseUrl: sim.url, dbPath, flags });
  const after = sim.ledger();
  return {
    status: summary.status,
    calls: after.calls - before.calls,
    cents: after.cents - before.cents,
    seconds: (performance.now() - t0) / 1000,
  };
}

async function planOwed(sim: Simulator, dbPath: string) {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const plan = buildPlan(await wh.syncState(), testConfig({ baseUrl: sim.url, dbPath }), null, {
      // The wall clock, as the sync's (the warehouse is aged with the simulated day).
      now: new Date(),
    });
    return { kind: plan.kind, calls: plan.cost.calls, cents: plan.cost.cents };
  } finally {
    await wh.close();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fragsync-bench-nightly-'));
  process.env.FRAGSYNC_SPOOL_DIR ??= join(dir, 'spool');
  const sim = await startSimulator({ fragrances: FRAGRANCES, seed: SEED });
  try {
    console.log(`bench:nightly: ${FRAGRANCES} fragrances, seed ${SEED}`);
    console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}`);
    console.log(
      `load average at start: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );

    const db = join(dir, 'nightly.duckdb');
    const full = await sync(sim, db);
    console.log(
      `\nday 1, full sync: ${full.status}, ${full.calls} calls, ${full.cents} cents, ${full.seconds.toFixed(1)} s; ${await exactness(sim, db)}`,
    );
    const capped = join(dir, 'capped.duckdb');
    await copyFile(db, capped);
    if (existsSync(`${db}.wal`)) await copyFile(`${db}.wal`, `${capped}.wal`);

    const before = sim.groundTruth();
    sim.advanceDay();
    // The nightly judges ages by the wall clock: both warehouses live through the day too.
    await ageWarehouse(db, 24);
    await ageWarehouse(capped, 24);
    const after = sim.groundTruth();
    const day = dayDiff(before, after);
    console.log(
      `\nthe day (default change model): ${day.added.length} new (${day.newBrands.length} from a new house), ` +
        `${day.removed.length} discontinued, ${after.fragrances.length} live fragrances`,
    );

    const nightly = await sync(sim, db);
    const ratio = nightly.cents / full.cents;
    const floorCents =
      after.fragrances.length * (ENDPOINTS.getFragrance.costCents + ENDPOINTS.getReviews.costCents);
    console.log(
      `day 2, nightly: ${nightly.status}, ${nightly.calls} calls, ${nightly.cents} cents, ${nightly.seconds.toFixed(1)} s; ${await exactness(sim, db)}`,
    );
    console.log(
      `  nightly / full = ${ratio.toFixed(3)}   target <= ${TARGET} ${ratio <= TARGET ? '(met)' : '(NOT MET)'}   ` +
        `floor ~${(floorCents / full.cents).toFixed(3)} (every profile and every first review page: ${floorCents} cents)`,
    );

    const cap = Math.max(1, Math.floor(full.cents * CAP_SHARE));
    const run = await sync(sim, capped, { 'max-cents': String(cap) });
    const incomplete = await newItemsIncomplete(capped, after, day);
    const left = await removedStillThere(capped, after.serviceDate, day);
    const owed = await planOwed(sim, capped);
    console.log(
      `\ncapped nightly (--max-cents ${cap}, ${CAP_SHARE * 100}% of the full sync): ${run.status}, ${run.calls} calls, ${run.cents} cents`,
    );
    console.log(
      `  every new fragrance complete: ${Object.keys(incomplete).length === 0 ? 'yes' : `NO (tables: ${Object.keys(incomplete).join(', ')})`}`,
    );
    console.log(
      `  every discontinued one gone: ${left.length === 0 ? 'yes' : `NO (${left.length} rows still name one)`}`,
    );
    console.log(`  plan says still owed (${owed.kind}): ${owed.calls} calls, ${owed.cents} cents`);
    console.log(
      `\nload average at end: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
