import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryJson } from '../../src/cli/summary-json.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';
import { OVERFLOW_TABLES } from '../../src/warehouse/contract.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { truthTables } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The edge reading sends entries the contract's keys cannot hold (tied chart ranks, an id or
 * a label repeated in one list): they are stored apart, in the overflow tables. The run's
 * summary says how many it stored there (its own rows, by _run_id), and the Parquet export
 * carries those tables, so a Parquet reader misses none of them; `fragsync status` shows them. Before, the summary said
 * nothing and the export wrote the contract tables only (a chart's tied entries were lost).
 */
let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
let first: SyncSummary;
const dbPath = () => join(dir.path, 'edge.duckdb');
const parquet = () => join(dir.path, 'parquet');

beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator({ fragrances: 100, seed: 7, variant: { edgeValues: true } });
  first = await runTestSync({ baseUrl: sim.url, dbPath: dbPath(), flags: { parquet: parquet() } });
});
afterAll(async () => {
  await sim?.close();
  await dir?.cleanup();
});

/** Rows per overflow table, those one run wrote and all of them. */
async function overflowRows(
  runId: string,
): Promise<{ run: Record<string, number>; all: Record<string, number> }> {
  const wh = await Warehouse.open(dbPath(), { readOnly: true });
  try {
    const run: Record<string, number> = {};
    const all: Record<string, number> = {};
    for (const t of OVERFLOW_TABLES) {
      const [r] = await wh.query<{ mine: number; n: number }>(
        `SELECT count(*) FILTER (WHERE _run_id = ?)::INTEGER AS mine, count(*)::INTEGER AS n FROM ${t}`,
        [runId],
      );
      run[t] = Number(r?.mine);
      all[t] = Number(r?.n);
    }
    return { run, all };
  } finally {
    await wh.close();
  }
}

const counted = (s: SyncSummary) =>
  Object.fromEntries(OVERFLOW_TABLES.map((t) => [t, s.overflow.find((o) => o.table === t)?.rows ?? 0]));
const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

describe('rows stored apart (the overflow tables)', () => {
  it('the summary counts what the run stored in each overflow table, in its text and its JSON; exit 0', async () => {
    const { run } = await overflowRows(first.runId);
    expect(first.status).toBe('completed');
    expect(counted(first)).toEqual(run);
    for (const t of OVERFLOW_TABLES) expect(run[t], t).toBeGreaterThan(0);
    const text = formatSummary(first);
    const each = OVERFLOW_TABLES.map((t) => `${t} ${run[t]}`).join(', ');
    expect(text).toContain(`stored apart: ${total(run)} rows the contract's keys cannot hold (${each};`);
    const json = JSON.parse(summaryJson(first)) as { overflow: unknown; exitCode: number };
    expect(json.overflow).toEqual(first.overflow);
    // Stored, not lost: not quarantined, so the exit code stays 0.
    expect(json.exitCode).toBe(0);
  });

  it('the Parquet export holds every overflow row, beside the contract tables', async () => {
    const files = await readdir(parquet());
    for (const t of OVERFLOW_TABLES) expect(files).toContain(`${t}.parquet`);
    const wh = await Warehouse.open(dbPath(), { readOnly: true });
    try {
      const file = (t: string) => `'${join(parquet(), `${t}.parquet`)}'`;
      const [n] = await wh.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM read_parquet(${file('chart_entries')}))
              + (SELECT count(*) FROM read_parquet(${file('chart_entries_overflow')}))::INTEGER AS n`,
      );
      // The whole leaderboard of the day the service sent, tied entries included.
      const truth = truthTables(sim.groundTruth());
      expect(Number(n?.n)).toBe(truth.chart_entries!.length + truth.chart_entries_overflow!.length);
      for (const t of OVERFLOW_TABLES) {
        const cols = await wh.query<{ name: string }>(
          `SELECT column_name AS name FROM duckdb_columns()
           WHERE table_name = ? AND NOT starts_with(column_name, '_') ORDER BY column_index`,
          [t],
        );
        const list = cols.map((c) => c.name).join(', ');
        const [d] = await wh.query<{ n: number; rows: number }>(
          `SELECT (SELECT count(*) FROM read_parquet(${file(t)}))::INTEGER AS rows, count(*)::INTEGER AS n FROM (
             (SELECT * FROM read_parquet(${file(t)}) EXCEPT ALL SELECT ${list} FROM ${t})
             UNION ALL (SELECT ${list} FROM ${t} EXCEPT ALL SELECT * FROM read_parquet(${file(t)})))`,
        );
        expect(Number(d?.rows), t).toBeGreaterThan(0);
        expect(Number(d?.n), t).toBe(0);
      }
    } finally {
      await wh.close();
    }
  });

  it("fragsync status shows the latest run's rows stored apart, in its text and its JSON", async () => {
    const { run } = await overflowRows(first.runId);
    const j = await fragsync(['status', '--json', '--db', dbPath()]);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      latestRun: { runId: first.runId, exitCode: 0, storedApartRows: total(run) },
    });
    const t = await fragsync(['status', '--db', dbPath()]);
    expect(t.stdout).toContain(`${first.runId} completed: `);
    expect(t.stdout).toContain(`, stored apart ${total(run)} (overflow tables)`);
  });

  it('a later run counts only the rows it stored, not those earlier runs left', async () => {
    const second = await runTestSync({ baseUrl: sim.url, dbPath: dbPath() });
    expect(second.status).toBe('completed');
    const { run, all } = await overflowRows(second.runId);
    expect(counted(second)).toEqual(run);
    expect(total(run)).toBeLessThan(total(all));
  });
});
