import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.ts';

const BIN = new URL('../../bin/fragsync.js', import.meta.url).pathname;
const SECRET = 'sk-test-plan-never-print-me';

let dir: { path: string; cleanup(): Promise<void> };
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  dir = await tempDir('fragsync-plan-cli-');
  // Stands where the API would be: any connection at all means `plan` tried to spend.
  server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dir.cleanup();
});

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, FRAGSYNC_API_KEY: SECRET };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('fragsync plan', () => {
  it('prints the plan for an absent warehouse and sends nothing', async () => {
    const db = join(dir.path, 'absent.duckdb');
    const res = await runCli([
      'plan',
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--db',
      db,
      '--max-cents',
      '500',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('LOWER BOUND');
    expect(res.stdout).toMatch(/GET\s+\/v1\/fragrances\s+1\s+1/);
    expect(res.stdout).toMatch(/total \(at least\)\s+4\s+4/);
    expect(res.stdout).toContain('run budget: fits so far (a lower bound): at least 4 cents vs cap 500');
    expect(res.stdout + res.stderr).not.toContain(SECRET);
    // Give a stray connection attempt time to arrive before counting.
    await new Promise((r) => setTimeout(r, 100));
    expect(connections).toBe(0);
  });

  it('rejects a bad flag value with one line on stderr and exit code 2', async () => {
    const res = await runCli(['plan', '--base-url', `http://127.0.0.1:${port}`, '--reserve-percent', '101']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toEqual([
      'fragsync plan: config: quota.reservePercent must be between 0 and 100 (from flag --reserve-percent)',
    ]);
    expect(connections).toBe(0);
  });
});

describe('fragsync plan on an existing warehouse', () => {
  it('reads the owed work, last seen quota and today’s spend read-only', async () => {
    const { Warehouse } = await import('../../src/warehouse/warehouse.ts');
    const db = join(dir.path, 'open-cycle.duckdb');
    const wh = await Warehouse.open(db);
    const started = new Date(Date.now() - 60_000);
    await wh.startRun('run-1', started);
    const at = new Date().toISOString();
    const call = (status: number, quotaRemaining: number | null) =>
      ({
        kind: 'apiCall',
        at,
        method: 'GET',
        endpoint: '/v1/fragrances',
        status,
        costCents: 1,
        quotaRemaining,
      }) as const;
    await wh.load({
      runId: 'run-1',
      items: [
        { kind: 'fragranceSummary', id: 'f1', name: 'One', brand: 'B' },
        { kind: 'fragranceSummary', id: 'f2', name: 'Two', brand: 'B' },
        call(200, 4321),
        call(200, 4320),
        call(0, null),
      ],
      progress: [
        { kind: 'discovered', entity: 'fragrance', key: 'f1', source: 'fragrances' },
        { kind: 'discovered', entity: 'fragrance', key: 'f2', source: 'fragrances' },
        { kind: 'walk', walk: 'fragrances@1', page: 1, total: 2, done: true },
        { kind: 'fetched', entity: 'fragrance', key: 'f1', dataset: 'profile' },
      ],
    });
    await wh.close(); // the run stays open: the next sync continues its cycle

    const cfg = join(dir.path, 'fragrances-only.json');
    const off = { brands: false, perfumers: false, notes: false, accords: false, charts: false };
    await writeFile(cfg, JSON.stringify({ datasets: off }));
    const args = ['plan', '--db', db, '--config', cfg, '--max-cents-per-day', '100', '--reserve', '20'];
    const res = await runCli(args);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('work still owed in the open cycle');
    expect(res.stdout).toMatch(/GET\s+\/v1\/fragrances\/\{id\}\s+1\s+1\n/); // f2 only
    expect(res.stdout).toMatch(/GET\s+\/v1\/fragrances\/\{id\}\/similar\s+2\s+4\n/);
    expect(res.stdout).not.toMatch(/GET\s+\/v1\/fragrances\s/); // list walk done this cycle
    // Neither review total is known yet: one page each is counted, so the totals are a floor.
    expect(res.stdout).toMatch(/total \(at least\)\s+7\s+11/);
    expect(res.stdout).toContain("2 fragrances' review totals are not known yet");
    expect(res.stdout).toContain('(remaining 4320 - reserve 20)');
    expect(res.stdout).toContain(
      'day budget: fits so far (a lower bound): 3 spent today + at least 11 cents vs cap 100',
    );

    // --json: the same plan as one object, its figures those of the warehouse.
    const json = await runCli([...args, '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const j = JSON.parse(json.stdout);
    const ro = await Warehouse.open(db, { readOnly: true });
    const [ledger] = await ro.query<{ cents: number; remaining: number }>(
      'SELECT sum(cost_cents)::INTEGER AS cents, min(quota_remaining)::INTEGER AS remaining FROM api_calls',
    );
    await ro.close();
    expect(j).toMatchObject({
      kind: 'openCycle',
      atLeast: true,
      totalCalls: 7,
      totalCents: 11,
      unknownReviewTotals: 2,
      quarantinedRecordsAskedAgain: 0,
      centsToday: ledger!.cents,
      maxCentsPerDay: 100,
      maxCentsPerRun: null,
      quota: { remainingCalls: ledger!.remaining, reserveCalls: 20, availableCalls: ledger!.remaining - 20 },
      fits: { dayBudget: 'unknown', runBudget: 'uncapped' },
      nightly: null,
    });
    expect(j.byEndpoint.getFragrance).toEqual({
      method: 'GET',
      path: '/v1/fragrances/{id}',
      calls: 1,
      cents: 1,
      quarantinedAskedAgain: 0,
    });
    expect(j.byEndpoint.listFragrances).toBeUndefined();
    const sum = (k: 'calls' | 'cents') =>
      Object.values(j.byEndpoint as Record<string, Record<typeof k, number>>).reduce((n, e) => n + e[k], 0);
    expect([sum('calls'), sum('cents')]).toEqual([j.totalCalls, j.totalCents]);
  });
});
