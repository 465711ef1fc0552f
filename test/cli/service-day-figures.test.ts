import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { fragsync } from '../helpers/cli.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';
import { spawnDashboard } from '../helpers/dashboard-process.ts';

/**
 * "Today" after the service's day moved (POST /_sim/advance-day), while this machine's day did
 * not: `status`, `plan` and the dashboard must read one day, the service's, with its calls,
 * cents and quota low. Before, the dashboard showed this machine's day (both syncs' calls) and
 * `plan` cut the quota window on this machine's day, taking in the previous service day's low.
 * Real syncs of the simulator into a real DuckDB file, the real CLI and a real dashboard.
 */
const env = { FRAGSYNC_API_KEY: 'sim-key' };
const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('service-day');
let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
let dashboard: ChildProcess | null = null;
let serviceDate = '';

beforeAll(async () => {
  dir = await tempDir();
  db = `${dir.path}/day.duckdb`;
  sim = await startSimulator({ fragrances: 20, seed: 5, dailyQuota: 100_000 });
  const sync = () => fragsync(['sync', '--base-url', sim.url, '--db', db], env, { timeoutMs: 120_000 });
  const first = await sync();
  expect(first.code, first.stderr).toBe(EXIT.ok);
  // Two service days on, as the brief's user saw it: the machine stays on its day.
  const res = await fetch(`${sim.url}/_sim/advance-day`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ days: 2, churn: false }),
  });
  serviceDate = ((await res.json()) as { now: string }).now.slice(0, 10);
  expect(serviceDate).not.toBe(new Date().toISOString().slice(0, 10));
  const second = await sync();
  expect(second.code, second.stderr).toBe(EXIT.ok);
}, 240_000);

afterAll(async () => {
  dashboard?.kill('SIGTERM');
  await cleanPrefix(redisUrl, prefix);
  await sim?.close();
  await dir?.cleanup();
});

/** `fragsync dashboard` on a free port: its page's HTML once it listens. */
async function dashboardPage(): Promise<string> {
  const args = ['--redis', redisUrl, '--db', db, '--queue-prefix', prefix, '--port', '0'];
  const { child, url } = await spawnDashboard(args);
  dashboard = child;
  return (await fetch(`${url}/`)).text();
}

const shown = (html: string, name: string) =>
  Number(new RegExp(`data-figure="${name}" data-value="(\\d+)"`).exec(html)?.[1]);

describe("today's figures after the service's day moved", () => {
  it('status, plan --json and the dashboard all say the service day, with its calls, cents and quota low', async () => {
    // The service's day holds the second run's calls only; the first run's are two days back.
    const runs = await queryWarehouse<{ run_id: string }>(
      db,
      'SELECT run_id FROM sync_runs ORDER BY started_at',
    );
    expect(runs).toHaveLength(2);
    const [ledger] = await queryWarehouse<{ calls: number; cents: number; low: number; all: number }>(
      db,
      `SELECT count(*)::INTEGER AS calls, sum(cost_cents)::INTEGER AS cents,
         min(quota_remaining)::INTEGER AS low, (SELECT count(*)::INTEGER FROM api_calls) AS "all"
       FROM api_calls WHERE run_id = ?`,
      [runs[1]!.run_id],
    );
    expect(ledger!.calls).toBeGreaterThan(0);
    expect(ledger!.all).toBeGreaterThan(ledger!.calls);
    // The service answered that low on its new day (its quota reset at the day's turn).
    expect(ledger!.low).toBeGreaterThan(100_000 - ledger!.all);

    const status = await fragsync(['status', '--db', db, '--json']);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({
      serviceDay: serviceDate,
      callsTodayLedger: ledger!.calls,
      centsTodayLedger: ledger!.cents,
      quotaRemainingCallsLedger: ledger!.low,
    });

    const plan = await fragsync(['plan', '--db', db, '--json']);
    expect(plan.code, plan.stderr).toBe(EXIT.ok);
    const p = JSON.parse(plan.stdout);
    expect(p.centsToday).toBe(s.centsTodayLedger);
    expect(p.quota.remainingCalls).toBe(s.quotaRemainingCallsLedger);

    const html = await dashboardPage();
    expect(html).toContain(`Ledger today (${serviceDate})`);
    expect(shown(html, 'ledger-calls-today')).toBe(s.callsTodayLedger);
    expect(shown(html, 'ledger-cents-today')).toBe(s.centsTodayLedger);
  }, 60_000);
});
