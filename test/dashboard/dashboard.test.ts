import type { ChildProcess } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { createRedisGovernor } from '../../src/governor/index.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { createLogger } from '../../src/util/logger.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { spawnDashboard } from '../helpers/dashboard-process.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * The dashboard in a real headless Chromium (Debian's, driven by playwright-core), against a
 * warehouse and a Redis written by real syncs of the simulator: every figure on the page is
 * checked against the warehouse and the governor's state in Redis. Screenshots go to
 * test-output/dashboard/ (gitignored), for a person to look at.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT = fileURLToPath(new URL('../../test-output/dashboard/', import.meta.url));
// The flags that let Chromium start as root on a closed network (see .ci/run).
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const redisUrl = inject('redisUrl');
/** The caps the syncs ran with, given to the dashboard too (it shows them when no run is going on). */
const CAPS = ['--max-cents', '50000', '--max-cents-per-day', '100000'];
const LIMITS = {
  reserveCalls: 0,
  reservePercent: 0,
  maxCentsPerRun: 50_000,
  maxCentsPerDay: 100_000,
  resumeJitterMs: 0,
};
const prefix = uniquePrefix('dash');
let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
let browser: Browser;
const dashboards: ChildProcess[] = [];

/** `fragsync dashboard` on a free port; resolves with its address once it listens. */
async function startDashboard(
  env: Record<string, string> = {},
): Promise<{ url: string; output: () => string }> {
  const args = ['--redis', redisUrl, '--db', db, '--queue-prefix', prefix, '--port', '0', ...CAPS];
  const { child, url, output } = await spawnDashboard(args, env);
  dashboards.push(child);
  return { url, output };
}

async function sync(extra: string[] = []) {
  return fragsync(
    ['sync', '--base-url', sim.url, '--db', db, '--redis', redisUrl, '--queue-prefix', prefix, ...extra],
    { FRAGSYNC_API_KEY: 'dash-key', FRAGSYNC_SPOOL_DIR: join(dir.path, 'spool') },
    { timeoutMs: 120_000 },
  );
}

async function warehouseFigures() {
  const wh = await Warehouse.open(db, { readOnly: true });
  try {
    const day = new Date().toISOString().slice(0, 10);
    // Records received and not stored; apart, jobs that failed (scope 'job': nothing received).
    const [q] = await wh.query<{ n: number; jobs: number }>(
      `SELECT count(*) FILTER (WHERE coalesce(scope, 'response') <> 'job')::INTEGER AS n,
         count(*) FILTER (WHERE scope = 'job')::INTEGER AS jobs
       FROM quarantine WHERE released_at IS NULL`,
    );
    const runs = await wh.query<{ run_id: string; status: string; calls: number; cost_cents: number }>(
      'SELECT run_id, status, calls, cost_cents FROM sync_runs ORDER BY started_at DESC',
    );
    const [fresh] = await wh.query<{ n: number }>(
      "SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'freshness'",
    );
    const freshnessRows = fresh?.n
      ? Number((await wh.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM freshness'))[0]?.n)
      : null;
    return {
      quarantine: q?.n ?? 0,
      failedJobs: q?.jobs ?? 0,
      runs,
      ledger: await wh.spendOnDay(day),
      freshnessRows,
    };
  } finally {
    await wh.close();
  }
}

async function governorStatus() {
  const redis = new Redis(redisUrl);
  try {
    const gov = createRedisGovernor(redis, { prefix, limits: LIMITS, logger: createLogger('silent') });
    const s = await gov.status();
    await gov.close();
    return s;
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  dir = await tempDir('fragsync-dash-');
  db = join(dir.path, 'wh.duckdb');
  // One profile served invalid: it stays in quarantine (a failed job's row is released once a
  // later sync fetched what it was to fetch), so the page's quarantine figures have something.
  sim = await startSimulator({ fragrances: 30, keys: ['dash-key'], invalidRecord: 'wrong-type' });
  const noRetries = join(dir.path, 'no-retries.json');
  writeFileSync(noRetries, JSON.stringify({ http: { maxRetries: 0 } }));
  // A first run against a failing service leaves failed jobs in quarantine; a second one reads
  // everything: exit 8 if it is the one that fetched the invalid profile, else 0.
  sim.setFaults({ errorRate: 0.4 });
  const failing = await sync(['--config', noRetries, ...CAPS]);
  expect(failing.code, failing.stderr).not.toBe(0);
  sim.setFaults({ errorRate: 0 });
  const clean = await sync(CAPS);
  expect([EXIT.ok, EXIT.quarantined], clean.stderr).toContain(clean.code);
  // launch() starts Chromium with a new empty profile (--user-data-dir) of its own each time.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const d of dashboards) if (d.exitCode === null) d.kill('SIGTERM');
  await sim?.close();
  await cleanPrefix(redisUrl, prefix);
  await dir?.cleanup();
});

describe('fragsync dashboard in headless Chromium', () => {
  it('shows the figures of the warehouse and of Redis, and a screenshot of it is saved', async () => {
    const { url } = await startDashboard();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const res = await page.goto(`${url}/`);
    expect(res?.status()).toBe(200);
    const figures = Object.fromEntries(
      await page.$$eval('[data-figure]', (els) =>
        els.map((e) => [e.getAttribute('data-figure'), e.getAttribute('data-value')]),
      ),
    ) as Record<string, string>;
    const wh = await warehouseFigures();
    const gov = await governorStatus();

    // Quota and reset, as the governor holds them; what the service says is left.
    expect(figures['quota-remaining']).toBe(String(gov.remaining));
    expect(Number(figures['quota-remaining'])).toBe(sim.clock().remaining);
    expect(figures['quota-limit']).toBe(String(sim.clock().limit));
    expect(figures['quota-reset']).toBe(gov.resetAt?.toISOString());
    // Spend today against the caps the run was given.
    expect(Number(figures['cents-today'])).toBe(gov.centsToday);
    expect(Number(figures['cents-today'])).toBe(wh.ledger.cents);
    expect(figures['cap-day']).toBe('100000');
    expect(figures['cap-run']).toBe('50000');
    expect(Number(figures['cents-run'])).toBe(wh.runs[0]!.cost_cents);
    expect(figures.state).toBe('running');
    // The warehouse's own figures.
    expect(Number(figures['ledger-cents-today'])).toBe(wh.ledger.cents);
    expect(Number(figures['ledger-calls-today'])).toBe(wh.ledger.calls);
    expect(wh.quarantine).toBeGreaterThan(0);
    expect(Number(figures['quarantine-total'])).toBe(wh.quarantine);
    // Failed jobs apart from records: the second run fetched their work, so none is pending.
    expect(Number(figures['failed-jobs'])).toBe(wh.failedJobs);
    expect(wh.failedJobs).toBe(0);

    // The last runs, newest first, with their cause, calls and cents.
    const runs = await page.$$eval('table[data-table="runs"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    const head = await page.$$eval('table[data-table="runs"] th', (ths) => ths.map((th) => th.textContent));
    const col = (name: string) => head.indexOf(name);
    expect(runs).toHaveLength(wh.runs.length);
    expect(runs.map((r) => r[col('run_id')])).toEqual(wh.runs.map((r) => r.run_id));
    expect(runs.map((r) => r[col('cause')])).toEqual(wh.runs.map((r) => r.status));
    expect(runs.map((r) => Number(r[col('calls')]))).toEqual(wh.runs.map((r) => r.calls));
    expect(runs.map((r) => Number(r[col('cents')]))).toEqual(wh.runs.map((r) => r.cost_cents));
    // Freshness: the view's rows where the warehouse has one, else a line saying it has none.
    const freshness = await page.$eval('[data-table="freshness"]', (e) => [
      e.getAttribute('data-rows'),
      e.textContent,
    ]);
    if (wh.freshnessRows === null) expect(freshness[1]).toContain('no freshness view');
    else expect(Number(freshness[0])).toBe(Math.min(50, wh.freshnessRows));
    // Quarantined records per endpoint add up to the total.
    const perEndpoint = await page.$$eval('table[data-table="quarantine-by-endpoint"] tbody tr', (trs) =>
      trs.map((tr) => Number(tr.querySelectorAll('td')[1]?.textContent)),
    );
    expect(perEndpoint.reduce((a, b) => a + b, 0)).toBe(wh.quarantine);

    await page.screenshot({ path: join(OUTPUT, 'overview.png'), fullPage: true });
    expect(statSync(join(OUTPUT, 'overview.png')).size).toBeGreaterThan(10_000);

    // bull-board, read-only, for our two queues.
    const board = await page.goto(`${url}/queues`);
    expect(board?.status()).toBe(200);
    await page.waitForSelector('text=fetch', { timeout: 30_000 });
    await page.screenshot({ path: join(OUTPUT, 'queues.png'), fullPage: true });
    const api = (await (await fetch(`${url}/queues/api/queues`)).json()) as {
      queues: { name: string; readOnlyMode: boolean }[];
    };
    expect(api.queues.map((q) => q.name).sort()).toEqual(['fetch', 'load']);
    expect(api.queues.every((q) => q.readOnlyMode)).toBe(true);
    await page.close();
  }, 120_000);

  it('while a sync holds the warehouse, the page says so and keeps the figures it read last', async () => {
    const { url } = await startDashboard();
    const page = await browser.newPage();
    await page.goto(`${url}/`);
    const before = await page.getAttribute('[data-figure="quarantine-total"]', 'data-value');
    const writer = await Warehouse.open(db);
    try {
      const res = await page.goto(`${url}/`);
      expect(res?.status()).toBe(200);
      const notice = await page.$eval('[data-warehouse-state]', (e) => [
        e.getAttribute('data-warehouse-state'),
        e.textContent,
      ]);
      expect(notice[0]).toBe('held');
      expect(notice[1]).toMatch(/a sync is writing the warehouse.*showing what was read at/);
      expect(await page.getAttribute('[data-figure="quarantine-total"]', 'data-value')).toBe(before);
      // Redis's figures are still live.
      expect(await page.getAttribute('[data-figure="quota-remaining"]', 'data-value')).toBe(
        String(sim.clock().remaining),
      );
      await page.screenshot({ path: join(OUTPUT, 'warehouse-held.png'), fullPage: true });
    } finally {
      await writer.close();
      await page.close();
    }
  }, 60_000);

  it('is read-only, and asks for basic auth when the environment sets it (never printing it)', async () => {
    const secret = 'pa55-w0rd-xyz';
    const { url, output } = await startDashboard({
      FRAGSYNC_DASHBOARD_USER: 'ops',
      FRAGSYNC_DASHBOARD_PASSWORD: secret,
    });
    expect((await fetch(`${url}/`)).status).toBe(401);
    const wrong = `Basic ${Buffer.from('ops:nope').toString('base64')}`;
    expect((await fetch(`${url}/`, { headers: { authorization: wrong } })).status).toBe(401);
    const right = { authorization: `Basic ${Buffer.from(`ops:${secret}`).toString('base64')}` };
    expect((await fetch(`${url}/`, { headers: right })).status).toBe(200);
    expect((await fetch(`${url}/api/overview`, { headers: right })).status).toBe(200);
    // Nothing changes state: no method but GET and HEAD, bull-board's actions included.
    expect((await fetch(`${url}/`, { method: 'POST', headers: right })).status).toBe(405);
    expect(
      (await fetch(`${url}/queues/api/queues/fetch/clean/completed`, { method: 'PUT', headers: right }))
        .status,
    ).toBe(405);
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(output()).not.toContain(secret);
  }, 60_000);
});
