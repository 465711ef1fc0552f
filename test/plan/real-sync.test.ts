import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/plan/format.ts';
import { buildPlan, type Plan } from '../../src/plan/plan.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { runTestSync, testConfig } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `plan` on a warehouse a real sync wrote (not hand-made state): it knows every catalogue size
 * (no lower bound), and the calls and cents it predicts for the next sync are what that sync
 * then spends, to within 2% (issue 15), on the same day and after a simulated day of changes.
 */

let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
const dbPath = () => join(dir.path, 'plan-real.duckdb');

beforeAll(async () => {
  dir = await tempDir('fragsync-plan-real-');
  sim = await startSimulator({ fragrances: 200, seed: 11 });
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

async function planNow(flags: Record<string, string | boolean> = {}): Promise<Plan> {
  const wh = await Warehouse.open(dbPath(), { readOnly: true });
  try {
    const state = await wh.syncState();
    // The simulator's day moves here before any run saw it: the test tells the plan the
    // service's clock (fragsync plan takes it as the last run recorded it).
    const config = testConfig({ baseUrl: sim.url, dbPath: dbPath(), flags });
    return buildPlan(state, config, null, { serviceNow: sim.now() });
  } finally {
    await wh.close();
  }
}

/** The next sync, and what the service billed it (its ledger before and after). */
async function spend(
  flags: Record<string, string | boolean> = {},
): Promise<{ calls: number; cents: number }> {
  const before = sim.ledger();
  const summary = await runTestSync({ baseUrl: sim.url, dbPath: dbPath(), flags });
  expect(summary.status).toBe('completed');
  const after = sim.ledger();
  return { calls: after.calls - before.calls, cents: after.cents - before.cents };
}

const within = (predicted: number, actual: number, share: number) =>
  expect(Math.abs(predicted - actual), `predicted ${predicted}, spent ${actual}`).toBeLessThanOrEqual(
    actual * share,
  );

describe('plan after a real completed sync', () => {
  it('knows the catalogue sizes and predicts the next sync within 2%: --full, and the nightly a day later', async () => {
    await spend();
    const plan = await planNow({ full: true });
    expect(plan.kind).toBe('fullCycle');
    expect(plan.unknownSizes).toEqual([]);
    expect(formatPlan(plan)).not.toContain('LOWER BOUND');
    const again = await spend({ full: true });
    within(plan.cost.calls, again.calls, 0.02);
    within(plan.cost.cents, again.cents, 0.02);

    // Run again at once: nothing is due, but a nightly reads the walks on every run (its
    // only signals), and the plan counts them.
    const rerun = await planNow();
    expect(rerun.kind).toBe('nightly');
    const walks = await spend();
    expect(walks.calls).toBeGreaterThan(0);
    expect({ calls: rerun.cost.calls, cents: rerun.cost.cents }).toEqual(walks);

    // A day later with nothing changed upstream: the nightly owes what the freshness policy
    // says is due and the walks, all of which the plan knows (the same rule, freshness.ts).
    sim.advanceDay({ churn: false });
    const nextDay = await planNow();
    expect(nextDay.kind).toBe('nightly');
    // It names what the nightly refreshes per dataset, and how stale each stays after it:
    // every profile is a day old and due, so none stays older than its policy.
    const printed = formatPlan(nextDay);
    expect(printed).toMatch(/^ {2}fragrance profile: 200 \(/m);
    expect(printed).toMatch(/^ {2}fragrance profile \(max 24 h\): 0 of 200 older/m);
    expect(nextDay.nightly?.after.every((a) => a.overPolicy === 0)).toBe(true);
    // Capped at 60 cents, the walks take their share and the rest buys a few profiles only.
    const capped = await planNow({ 'max-cents': '60' });
    expect(capped.nightly?.cut).toBe(true);
    const left = capped.nightly?.after.find((a) => a.entity === 'fragrance' && a.dataset === 'profile');
    const bought = capped.nightly?.refresh.find((r) => r.entity === 'fragrance' && r.dataset === 'profile');
    expect(bought?.keys.length ?? 0).toBeLessThan(60);
    expect(left?.overPolicy).toBe(200 - (bought?.keys.length ?? 0));
    expect(formatPlan(capped)).toContain('stops it before every due item is refreshed');
    const nightly = await spend();
    expect(nightly.cents).toBeGreaterThan(0);
    within(nextDay.cost.calls, nightly.calls, 0.02);
    within(nextDay.cost.cents, nightly.cents, 0.02);

    // A day of changes: what the walks and profiles reveal (new items, signals) comes on top.
    sim.advanceDay();
    const busy = await planNow();
    const spent = await spend();
    expect(spent.cents).toBeGreaterThanOrEqual(busy.cost.cents);
    // Five syncs of 200 fragrances: about 45 s under the shared machine's load of 25.
  }, 180_000);
});
