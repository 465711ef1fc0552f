import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { figuresOf, spawnDashboard } from '../helpers/dashboard-process.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * The dashboard's headline cards of a warehouse whose syncs ran without Redis (no governor
 * state on the prefix). "Quota left" showed the ledger's last remaining even when its service
 * day was over (the quota renewed at the service's midnight since), and `status` printed it as
 * if current; "This run" showed 0 ¢ / 0 calls whether no run was going on or one was running
 * in-process. Real syncs of the simulator, real DuckDB, the real CLI and a real dashboard.
 */

const env = { FRAGSYNC_API_KEY: 'sim-key' };
const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('dash-run-quota');
let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
const dashboards: ChildProcess[] = [];

beforeAll(async () => {
  dir = await tempDir('fragsync-dash-run-quota-');
  // Each /v1 answer waits: a sync lasts long enough to be seen running.
  sim = await startSimulator({ fragrances: 30, latencyMs: 150 });
}, 60_000);

afterAll(async () => {
  for (const d of dashboards) if (d.exitCode === null) d.kill('SIGTERM');
  await sim?.close();
  await cleanPrefix(redisUrl, prefix);
  await dir?.cleanup();
});

async function dashboard(db: string): Promise<() => Promise<string>> {
  const args = ['--redis', redisUrl, '--db', db, '--queue-prefix', prefix, '--port', '0'];
  const started = await spawnDashboard(args);
  dashboards.push(started.child);
  return async () => (await fetch(`${started.url}/`)).text();
}

const sync = (db: string) =>
  fragsync(['sync', '--base-url', sim.url, '--db', db], env, { timeoutMs: 120_000 });

describe('fragsync dashboard without governor state in Redis: quota renewed, and the run card', () => {
  it("says the quota was renewed since when the ledger's reading is of a service day that is over; status agrees", async () => {
    const db = join(dir.path, 'yesterday.duckdb');
    const r = await sync(db);
    expect(r.code, r.stderr).toBe(0);
    // The sync ran a day ago (as on the service's clock: its offset is about 0): its reading
    // is of a service day that is over, the quota renewed at that day's end.
    const wh = await Warehouse.open(db);
    try {
      await wh.query(`UPDATE api_calls SET "at" = "at" - INTERVAL 1 DAY`);
      await wh.query(
        `UPDATE sync_runs SET started_at = started_at - INTERVAL 1 DAY, finished_at = finished_at - INTERVAL 1 DAY`,
      );
    } finally {
      await wh.close();
    }
    const page = await dashboard(db);
    const html = await page();
    const figures = figuresOf(html);
    const st = await fragsync(['status', '--db', db, '--json']);
    const status = JSON.parse(st.stdout) as {
      quotaRemainingCallsLedger: number;
      quotaLedgerRenewed: boolean;
      quotaLedgerResetAt: string;
      quotaLedgerSentAt: string;
      latestRun: { runId: string; calls: number; cents: number };
    };
    expect(status.quotaLedgerRenewed).toBe(true);
    expect(Date.parse(status.quotaLedgerResetAt)).toBeLessThan(Date.now());

    // Not the stale figure as if current: renewed since the reset, with what was last seen.
    expect(figures['quota-source']).toBe('warehouse');
    expect(figures['quota-remaining']).toBe('');
    expect(figures['quota-renewed']).toBe('renewed');
    expect(figures['quota-reset']).toBe(status.quotaLedgerResetAt);
    expect(Number(figures['quota-last-seen'])).toBe(status.quotaRemainingCallsLedger);
    expect(figures['quota-as-of']).toBe(status.quotaLedgerSentAt);
    expect(html).toContain('renewed since');
    expect(html).not.toContain('quota left may have changed since');
    const text = await fragsync(['status', '--db', db]);
    expect(text.stdout).toMatch(
      new RegExp(
        `^quota remaining \\(ledger\\)\\s+renewed since ${status.quotaLedgerResetAt.replace(/[.]/g, '\\.')} .*last seen ${status.quotaRemainingCallsLedger} on `,
        'm',
      ),
    );

    // This run: no run going on, and the last one as the warehouse recorded it, not 0 ¢.
    expect(figures['run-state']).toBe('none');
    expect(figures['cents-run']).toBeUndefined();
    expect(figures['run-id']).toBe(status.latestRun.runId);
    expect(Number(figures['last-run-calls'])).toBe(status.latestRun.calls);
    expect(Number(figures['last-run-cents'])).toBe(status.latestRun.cents);
    expect(status.latestRun.cents).toBeGreaterThan(0);
  }, 180_000);

  it('says a sync is running in-process (its figures are in its own progress line), then shows it as the last run', async () => {
    const db = join(dir.path, 'running.duckdb');
    const page = await dashboard(db);
    const running = sync(db);
    let seen: Record<string, string> = {};
    let html = '';
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      html = await page();
      seen = figuresOf(html);
      if (seen['run-state'] === 'in-process') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen['run-state'], html).toBe('in-process');
    expect(seen['run-id']).toMatch(/\S/);
    expect(seen['cents-run']).toBeUndefined();
    expect(html).toContain('its own progress line');
    const r = await running;
    expect(r.code, r.stderr).toBe(0);

    const after = figuresOf(await page());
    const status = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout) as {
      latestRun: { runId: string; calls: number; cents: number };
    };
    expect(status.latestRun.runId).toBe(seen['run-id']);
    expect(after['run-state']).toBe('none');
    expect(after['run-id']).toBe(status.latestRun.runId);
    expect(Number(after['last-run-cents'])).toBe(status.latestRun.cents);
    expect(Number(after['last-run-calls'])).toBe(status.latestRun.calls);
  }, 180_000);
});
