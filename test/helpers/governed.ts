import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import type { Ledger } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from './ground-truth.ts';
import { runTestSync } from './sync.ts';
import { tempDir } from './tmp.ts';

/**
 * Shared pieces of the governed end-to-end scenarios (test/e2e/governed-*.test.ts): a config
 * file with a short resume jitter (the default 5 s would skip whole compressed days), the
 * mirror and ledger checks every scenario ends with, and ledger arithmetic.
 */

/** Resume jitter in the scenarios, ms: short against a service day of a few seconds. */
export const TEST_JITTER_MS = 100;

/** A config file (merged over the defaults) with a short resume jitter. */
export async function jitterConfig(dir: string, name = 'governed.json'): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS } }));
  return path;
}

/**
 * A config file with the short resume jitter and job locks of `lockMs` (queue.lockMs), and
 * any other queue settings given (queue.leaseMs...).
 */
export async function lockConfig(
  path: string,
  lockMs: number,
  queue: Record<string, number> = {},
): Promise<string> {
  await writeFile(
    path,
    JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS }, queue: { lockMs, ...queue } }),
  );
  return path;
}

/**
 * What every governed e2e file sets up: a temp folder (removed after the file) and the
 * jitter config in it. Registers vitest's hooks; read `path()` and `config` inside tests.
 */
export function governedFiles(): { path(name: string): string; readonly config: string } {
  let dir: { path: string; cleanup(): Promise<void> } | null = null;
  let config = '';
  beforeAll(async () => {
    dir = await tempDir();
    config = await jitterConfig(dir.path);
  });
  afterAll(async () => {
    await dir?.cleanup();
  });
  return {
    path: (name) => join(dir!.path, name),
    get config() {
      return config;
    },
  };
}

/**
 * Every contract table equals the ground truth. Charts are read once per cycle and stored as
 * the snapshot of the service day they were read on; with a compressed clock (or a day
 * advanced between runs, without churn) that day is earlier than the truth's, and a run that
 * waited through a reset may have read some charts on one day and the rest on the next (or
 * read them again on the new day): each snapshot is compared with the chart on its own day.
 */
export async function expectMirror(sim: Simulator, dbPath: string): Promise<void> {
  const days = (
    await queryWarehouse<{ d: string }>(
      dbPath,
      'SELECT DISTINCT CAST(snapshot_date AS VARCHAR) AS d FROM chart_entries ORDER BY 1',
    )
  ).map((r) => String(r.d));
  expect(days.length).toBeGreaterThanOrEqual(1);
  const truth = sim.groundTruth();
  const expected = truthTables({ ...truth, serviceDate: days[0]! });
  const actual = await warehouseTables(dbPath, days[0]!);
  // Every chart snapshot, on each day one was read, is the chart as the service shows it,
  // and every chart was read.
  expected.chart_entries = [];
  actual.chart_entries = [];
  const read = new Set<string>();
  for (const day of days) {
    const slugs = new Set(
      (
        await queryWarehouse<{ s: string }>(
          dbPath,
          'SELECT DISTINCT chart_slug AS s FROM chart_entries WHERE CAST(snapshot_date AS VARCHAR) = ?',
          [day],
        )
      ).map((r) => r.s),
    );
    for (const s of slugs) read.add(s);
    const onDay = truthTables({ ...truth, serviceDate: day }).chart_entries ?? [];
    expected.chart_entries.push(...onDay.filter((row) => slugs.has((JSON.parse(row) as string[])[0]!)));
    actual.chart_entries.push(...((await warehouseTables(dbPath, day)).chart_entries ?? []));
  }
  expect(diffTables(expected, actual)).toEqual({});
  expect([...read].sort()).toEqual(truth.charts.map((c) => c.slug).sort());
}

/** The warehouse's api_calls equal the service's ledger: every request, and the billed cents. */
export async function expectLedgerEqual(sim: Simulator, dbPath: string): Promise<void> {
  const ours = await warehouseLedger(dbPath);
  const theirs = sim.ledger();
  expect(ours.calls).toBe(theirs.calls);
  expect(ours.billable).toBe(theirs.cents);
}

/**
 * After a process was stopped at once (SIGKILL, a second Ctrl-C, a journal that cannot be
 * written), the warehouse's api_calls hold every request the service received, and may hold up
 * to `inFlight` more: a request is journaled before its bytes leave, and one cut off at that
 * moment may never be read (nor billed) by the service. No ledger can know which; it errs on the
 * side of a call that may have been billed (status 0), never of a call forgotten. So its cents
 * are never below the service's either. The clean-clone CI run saw it once in a SIGKILL test
 * (459 calls against the service's 458).
 */
export async function expectLedgerWithin(sim: Simulator, dbPath: string, inFlight: number): Promise<void> {
  const ours = await warehouseLedger(dbPath);
  const theirs = sim.ledger();
  expect(ours.calls).toBeGreaterThanOrEqual(theirs.calls);
  expect(ours.calls - theirs.calls).toBeLessThanOrEqual(inFlight);
  expect(ours.billable).toBeGreaterThanOrEqual(theirs.cents);
}

/** Requests the service answered with `status`, over all endpoints. */
export function callsWithStatus(sim: Simulator, status: number): number {
  let n = 0;
  for (const e of Object.values(sim.ledger().byEndpoint)) n += e.byStatus[status] ?? 0;
  return n;
}

/** Calls a clean, uninterrupted sync of this catalogue sends (same seed, its own service). */
export async function cleanRunCalls(
  start: () => Promise<Simulator>,
  dbPath: string,
  configPath: string,
): Promise<{ calls: number; cents: number; ledger: Ledger; paid: string[] }> {
  // A sync on a warehouse a completed sync wrote is the nightly, which pays for what changed:
  // a yardstick for a full run needs a new warehouse (two scenarios of one file shared one).
  if (existsSync(dbPath))
    throw new Error(`cleanRunCalls: ${dbPath} exists; give each clean run its own file`);
  const sim = await start();
  try {
    const s = await runTestSync({ baseUrl: sim.url, dbPath, flags: { config: configPath } });
    expect(s.status).toBe('completed');
    return {
      calls: sim.ledger().calls,
      cents: sim.ledger().cents,
      ledger: sim.ledger(),
      paid: sim.paidRequests(),
    };
  } finally {
    await sim.close();
  }
}

/**
 * The most paid calls an interruption can make a sync repeat: the jobs in flight (at most
 * `inFlight`) lose the calls they had made; everything returned before was journaled (or
 * loaded). A job makes one call, except reviews and brand catalogues (one per page of 50),
 * so the worst case is the `inFlight` largest jobs of the catalogue, all nearly done.
 */
export function repeatBound(sim: Simulator, inFlight: number): number {
  const truth = sim.groundTruth();
  const pages = (n: number) => Math.max(1, Math.ceil(n / 50));
  const sizes = [
    ...Object.values(truth.reviews).map((r) => pages(r.length)),
    ...Object.values(truth.brandCatalogues).map((b) => pages(b.length)),
  ].sort((x, y) => y - x);
  return sizes.slice(0, inFlight).reduce((sum, n) => sum + n, 0);
}

/**
 * The billed requests (simulator option recordPaid) of `run` beyond those of a clean run of
 * the same catalogue: each one as many times as it was paid more often than there.
 */
export function paidAgain(clean: readonly string[], run: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const r of clean) left.set(r, (left.get(r) ?? 0) + 1);
  const again: string[] = [];
  for (const r of run) {
    const n = left.get(r) ?? 0;
    if (n > 0) left.set(r, n - 1);
    else again.push(r);
  }
  return again;
}

/**
 * Billed requests counted by kind, most first: the list or item they read (its path without
 * ids: a segment that names a collection or a sub-resource is kept) and whether it is a later
 * page of a walk. For the fault scenarios' figures: what was bought again.
 */
export function paidByKind(requests: readonly string[]): string {
  const kinds = new Map<string, number>();
  const named =
    /^(v1|fragrances|brands|perfumers|notes|accords|charts|search|reviews|similar|wearing-stats|enrich|review-digest|account)$/;
  for (const r of requests) {
    const [method, target = ''] = r.split(' ');
    const [path = '', query = ''] = target.split('?');
    const page = Number(/(?:^|&)page=(\d+)/.exec(query)?.[1] ?? 1);
    const parts = path
      .split('/')
      .filter((p) => p.length > 0)
      .map((p) => (named.test(p) ? p : '{id}'));
    const kind = `${method} /${parts.join('/')}${page > 1 ? ' page>1' : ''}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}

/** Rows of one query against a closed warehouse file. */
export async function queryWarehouse<T>(dbPath: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    return await wh.query<T>(sql, params);
  } finally {
    await wh.close();
  }
}

/**
 * pino lines as the sync writes them, watched as they arrive: `onPause` fires synchronously
 * when the coordinator logs a quota pause (before anything else can be sent).
 */
export class LogWatch extends Array<string> {
  pauses: { at: number; until: Date }[] = [];
  onPause: ((until: Date) => void) | null = null;

  override push(...items: string[]): number {
    for (const line of items) {
      const entry = JSON.parse(line) as { msg?: string; pausedUntil?: string; runId?: string };
      if (entry.runId && entry.pausedUntil && entry.msg?.startsWith('quota paused until')) {
        const until = new Date(entry.pausedUntil);
        this.pauses.push({ at: Date.now(), until });
        this.onPause?.(until);
      }
    }
    return super.push(...items);
  }
}

/**
 * Resolves once `ok()` holds (looked at every `everyMs`, 20 by default; `ok` may be async);
 * fails after `timeoutMs`, naming `what`.
 */
export async function waitFor(
  what: string,
  ok: () => boolean | Promise<boolean>,
  timeoutMs = 120_000,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
