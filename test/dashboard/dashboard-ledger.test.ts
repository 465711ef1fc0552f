import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { fragsync } from '../helpers/cli.ts';
import { figuresOf, spawnDashboard } from '../helpers/dashboard-process.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * The dashboard of a warehouse whose syncs ran without Redis: Redis holds no governor state on
 * the prefix, so its headline cards said "Spent today 0 ¢" and "Quota left unknown" while the
 * ledger card below said what was spent (new-user trial). They show the ledger's figures now,
 * as `status` reads them, labelled as read from the warehouse.
 */

const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('dash-ledger');
let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
let dashboard: ChildProcess | undefined;

beforeAll(async () => {
  dir = await tempDir('fragsync-dash-ledger-');
  db = join(dir.path, 'wh.duckdb');
  sim = await startSimulator({ fragrances: 30 });
  const r = await fragsync(['sync', '--base-url', sim.url, '--db', db], { FRAGSYNC_API_KEY: 'sim-key' });
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  if (dashboard?.exitCode === null) dashboard.kill('SIGTERM');
  await sim?.close();
  await cleanPrefix(redisUrl, prefix);
  await dir?.cleanup();
});

describe('fragsync dashboard without governor state in Redis', () => {
  it("shows today's spend and the last quota seen from the warehouse's ledger, saying so", async () => {
    const started = await spawnDashboard([
      '--redis',
      redisUrl,
      '--db',
      db,
      '--queue-prefix',
      prefix,
      '--port',
      '0',
    ]);
    dashboard = started.child;
    const html = await (await fetch(`${started.url}/`)).text();
    const figures = figuresOf(html);
    const status = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout) as {
      centsTodayLedger: number;
      quotaRemainingCallsLedger: number;
      quotaLedgerSentAt: string;
    };

    // Spent today: the ledger's, on the service's day, as status says it: what the service billed.
    expect(Number(figures['cents-today'])).toBe(status.centsTodayLedger);
    expect(Number(figures['cents-today'])).toBe(sim.ledger().cents);
    expect(figures['cents-today-source']).toBe('warehouse');
    // Quota left: the last the service answered, with when.
    expect(Number(figures['quota-remaining'])).toBe(status.quotaRemainingCallsLedger);
    expect(Number(figures['quota-remaining'])).toBe(sim.clock().remaining);
    expect(figures['quota-source']).toBe('warehouse');
    expect(figures['quota-as-of']).toBe(status.quotaLedgerSentAt);
    expect(html).toMatch(
      /read from the warehouse<\/span>: the last the service answered, as of <span[^>]*>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/,
    );
    const overview = (await (await fetch(`${started.url}/api/overview`)).json()) as {
      quota: { from: string; asOf: string };
      spend: { centsTodayFrom: string };
    };
    expect(overview.quota).toMatchObject({ from: 'warehouse', asOf: status.quotaLedgerSentAt });
    expect(overview.spend.centsTodayFrom).toBe('warehouse');
  }, 60_000);
});
