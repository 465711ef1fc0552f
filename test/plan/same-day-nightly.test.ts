import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator, SimulatorOptions } from '../../src/simulator/types.ts';
import { fragsync } from '../helpers/cli.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { governedFiles, queryWarehouse } from '../helpers/governed.ts';

/**
 * A fragrance whose profile stays in quarantine (the service answers it, invalid) still has
 * its other datasets refreshed when they are due: the nightly asks the profile again, and its
 * reviews, a day old, with it. Before, the nightly's retime owed that profile again (its
 * fetch is forgotten while the record is open) and so hid the due reviews it had opened: the
 * nightly after `advance-day` skipped them, and `plan` then listed one review call the next
 * same-day nightly did not make (plan 13 calls, the nightly 12).
 */
const KEY = { FRAGSYNC_API_KEY: 'sim-key' };
let sim: Simulator;
let db: string;
const read = <T>(sql: string) => queryWarehouse<T>(db, sql);

/** A simulator and a warehouse file for one describe block (its hooks registered). */
function simAndWarehouse(options: SimulatorOptions): void {
  const files = governedFiles();
  beforeAll(async () => {
    sim = await startSimulator(options);
    db = files.path('w.duckdb');
  });
  afterAll(() => sim.close());
}

/** What `fragsync plan --json` says the next sync costs: calls per endpoint path, and the rest. */
async function plan(): Promise<{ calls: Record<string, number>; undiscoveredFragrances: number }> {
  const out = await fragsync(['plan', '--base-url', sim.url, '--db', db, '--json'], KEY);
  expect(out.code, out.stderr).toBe(0);
  const json = JSON.parse(out.stdout) as {
    byEndpoint: Record<string, { path: string; calls: number }>;
    undiscoveredFragrances: number;
  };
  const calls = Object.fromEntries(Object.values(json.byEndpoint).map((e) => [e.path, e.calls]));
  return { calls, undiscoveredFragrances: json.undiscoveredFragrances };
}

/** The last run's calls per endpoint template, as its ledger rows say. */
async function lastRunCalls(): Promise<Record<string, number>> {
  const rows = await read<{ endpoint: string; n: number }>(
    `SELECT endpoint, count(*)::INTEGER AS n FROM api_calls
     WHERE run_id = (SELECT max(run_id) FROM sync_runs) GROUP BY endpoint`,
  );
  return Object.fromEntries(rows.map((r) => [r.endpoint, r.n]));
}

describe.each([inProcess, bullmq])('a fragrance whose profile stays in quarantine ($name)', (driver) => {
  simAndWarehouse({ fragrances: 15, invalidRecord: 'missing-key' });

  it('gets its due reviews from the nightly, and plan names exactly what the next nightly buys', async () => {
    const sync = () => driver.sync(sim, db);
    // It read everything; the profile it could not store is in quarantine.
    expect((await sync()).status).toBe('completed_with_quarantine');
    const id = sim.invalidRecord()!.id;
    const reviewsAt = async () =>
      (
        await read<{ at: string | null }>(
          `SELECT fetched_reviews::VARCHAR AS at FROM sync_items WHERE entity = 'fragrance' AND key = '${id}'`,
        )
      )[0]?.at ?? null;
    const before = await reviewsAt();
    expect(before).not.toBeNull();

    // A day on (no changes upstream): every fragrance's reviews are due, this one's too.
    sim.advanceDay({ churn: false });
    await sync();
    expect(await reviewsAt()).not.toBe(before);
    expect((await lastRunCalls())['/v1/fragrances/{id}/reviews']).toBe(15);

    // The same service day: the quarantined profile is asked again (one call), nothing is due.
    const said = (await plan()).calls;
    await sync();
    const made = await lastRunCalls();
    expect(said).toEqual(made);
    expect(made['/v1/fragrances/{id}']).toBe(1);
    expect(made['/v1/fragrances/{id}/reviews']).toBeUndefined();
  }, 120_000);
});

/**
 * The edge reading's fragrance list names some entries twice (legal: a listing may repeat), so
 * its total is above the fragrances it holds (151 entries for 132). Once a nightly read it
 * whole, every entry it named is known: plan counted the difference as fragrances still to
 * find (19, priced complete: 76 calls, 'at least') that no nightly buys.
 */
describe.each([inProcess, bullmq])('a fragrance list that names entries twice ($name)', (driver) => {
  simAndWarehouse({ fragrances: 132, seed: 2, variant: { edgeValues: true } });

  it('is no fragrance to find once read whole: plan names what the same-day nightly buys', async () => {
    expect((await driver.sync(sim, db)).status).toBe('completed');
    sim.advanceDay({ churn: false });
    expect((await driver.sync(sim, db)).status).toBe('completed');
    const said = await plan();
    expect(said.undiscoveredFragrances).toBe(0);
    expect((await driver.sync(sim, db)).status).toBe('completed');
    expect(said.calls).toEqual(await lastRunCalls());
  }, 120_000);
});
