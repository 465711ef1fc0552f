import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  cleanRunCalls,
  expectLedgerEqual,
  expectLedgerWithin,
  expectMirror,
  governedFiles,
  queryWarehouse,
  repeatBound,
  TEST_JITTER_MS,
} from '../helpers/governed.ts';
import type { LoadEntry } from '../../src/domain/items.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { spawnSync } from '../helpers/sync-process.ts';

/**
 * `fragsync sync` runs out of room to write in the middle of a run, then runs again with
 * room. The first run must stop with one line that names the file and the documented exit
 * code, without the key; the second must replay what the first journaled, so that the
 * mirror is exact, `api_calls` equals what the service billed, and only the jobs in flight
 * at the failure are paid for twice.
 *
 * The room runs out through a file-size limit (EFBIG), which any user can set: the DuckDB
 * file (its WAL) or a journal segment outgrows it while results are still arriving. A
 * clean run of this catalogue writes a WAL of about 4 MB and takes 1,500 calls.
 */

const CATALOGUE = { fragrances: 300, seed: 61 };
const CONCURRENCY = 4;
const LIMIT_KB = 2048;
const KEY = 'sim-key';

const files = governedFiles();

/**
 * Lines of the process's output that are not pino's JSON log lines nor the progress line
 * (written every 10 s off a terminal: a loaded machine makes a run that long): what a
 * person reads at the end.
 */
const humanLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.length > 0 && !line.startsWith('{') && !/^\d{4}-\d\d-\d\dT\S+ \w+ \| /.test(line));

/**
 * Every text cell of every table that contains `needle`, as `table.column` names. One open
 * of the file for all of them: an open per column (about a hundred) took 7 s of a 29 s test
 * at a load average of 24, 20 s of 57 at 26.
 */
async function columnsContaining(dbPath: string, needle: string): Promise<string[]> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const cols = await wh.query<{ t: string; c: string }>(
      `SELECT table_name AS t, column_name AS c FROM information_schema.columns
       WHERE data_type = 'VARCHAR' AND table_schema = 'main'`,
    );
    const hits: string[] = [];
    for (const { t, c } of cols) {
      const [r] = await wh.query<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM "${t}" WHERE contains("${c}", ?)`,
        [needle],
      );
      if (Number(r?.n) > 0) hits.push(`${t}.${c}`);
    }
    return hits;
  } finally {
    await wh.close();
  }
}

const journalSegments = (dbPath: string) =>
  readdirSync(dirname(dbPath)).filter((f) => f.startsWith(`${basename(dbPath)}.journal-`));

/**
 * One run that runs out of room, then one with room, on a fresh service. `o.loader` (merged
 * into the first run's config) decides which file outgrows the limit first; `o.names` is the
 * file the error must name; `o.loadedBefore`: batches were committed before the failure.
 */
async function outOfRoomThenResume(
  name: string,
  o: { loader: object; names: RegExp; loadedBefore: boolean },
): Promise<void> {
  const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
  try {
    const dbPath = files.path(`${name}.duckdb`);
    const config = files.path(`${name}.json`);
    await writeFile(config, JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS }, loader: o.loader }));
    const full = await spawnSync(sim, dbPath, { config, concurrency: CONCURRENCY, fileSizeLimitKb: LIMIT_KB })
      .exited;
    const paidBeforeFull = sim.ledger().calls;
    // Mid-run: it had been paying for a while and had not finished.
    expect(paidBeforeFull, full.output).toBeGreaterThan(100);
    expect(paidBeforeFull, full.output).toBeLessThan(clean.calls);
    expect(full.code, full.output).toBe(EXIT.badInput);
    const said = humanLines(full.output);
    expect(said, full.output).toHaveLength(1);
    expect(said[0]).toMatch(
      /^fragsync sync: DISK_FULL: .*no room to write \/\S+ \(file size limit reached\)$/,
    );
    expect(said[0]).toMatch(o.names);
    expect(full.output).not.toContain(KEY);
    // What it fetched and could not load is in the journal, and never the key.
    const segments = journalSegments(dbPath);
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) expect(readFileSync(join(dirname(dbPath), s), 'utf8')).not.toContain(KEY);
    if (!o.loadedBefore) {
      // Requests leave with a line each; those still in flight at the end are journaled again
      // together. A request only in that last line left after the journal was full: once the
      // journal cannot keep what running jobs fetch, the run halts them at once rather than
      // paying for their further pages, and only the requests then holding one of the
      // http.concurrency slots can still leave (LoadStage.journalFailure, Halt).
      const sentLines = segments.flatMap((s) =>
        readFileSync(join(dirname(dbPath), s), 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => ((JSON.parse(l) as LoadEntry).sent ?? []).map((c) => c.callId))
          .filter((ids) => ids.length > 0),
      );
      const leaving = new Set(sentLines.filter((ids) => ids.length === 1).flat());
      const after = sentLines.flat().filter((id) => !leaving.has(id));
      expect(new Set(sentLines.flat()).size).toBe(paidBeforeFull);
      expect(after.length).toBeLessThanOrEqual(CONCURRENCY);
    }
    if (o.loadedBefore) {
      // The failure came after committed batches: the file that failed once opens again.
      const [row] = await queryWarehouse<{ n: number }>(
        dbPath,
        'SELECT count(*)::INTEGER AS n FROM api_calls',
      );
      expect(Number(row?.n)).toBeGreaterThan(0);
    }

    const resumed = await spawnSync(sim, dbPath, { config: files.config, concurrency: CONCURRENCY }).exited;
    expect(resumed.code, resumed.output).toBe(EXIT.ok);
    expect(resumed.output).toContain(': completed in');
    expect(resumed.output).not.toContain(KEY);
    expect(journalSegments(dbPath)).toEqual([]);

    await expectMirror(sim, dbPath);
    const runs = await queryWarehouse<{ status: string }>(
      dbPath,
      'SELECT status FROM sync_runs ORDER BY started_at',
    );
    expect(runs.map((r) => r.status)).toEqual(['died', 'completed']);
    // The journal's failure stopped the jobs: a request leaving at that instant is ledgered
    // and may never have been read by the service (in about half the runs, one review page).
    if (o.loadedBefore) await expectLedgerEqual(sim, dbPath);
    else await expectLedgerWithin(sim, dbPath, CONCURRENCY);
    // Everything answered before the failure was kept: only the jobs in flight repeat (as
    // many as the process runs at once), and nothing the clean run bought is left unbought.
    const jobs = jobsPerProcess({ config: files.config, concurrency: String(CONCURRENCY) });
    expectRepeatsWithin(sim, clean, repeatBound(sim, jobs), name);
    expect(await columnsContaining(dbPath, KEY)).toEqual([]);
  } finally {
    await sim.close();
  }
}

let clean: { calls: number; cents: number; paid: string[] };
beforeAll(async () => {
  clean = await cleanRunCalls(
    () => startSimulator({ ...CATALOGUE, recordPaid: true }),
    files.path('clean.duckdb'),
    files.config,
  );
});

describe('sync out of room to write: one line, exit 2, no key; the next run loses nothing and pays once', () => {
  it('when the warehouse (its WAL) outgrows the limit after batches were committed', async () => {
    await outOfRoomThenResume('wal', {
      loader: { batchItems: 200, flushMs: 20 },
      names: /\/wal\.duckdb\.wal /,
      loadedBefore: true,
    });
  });

  it('when the journal outgrows it while the warehouse has room (no batch written before)', async () => {
    // No batch is written until the run ends, so the open journal segment grows alone.
    await outOfRoomThenResume('journal', {
      loader: { batchItems: 1_000_000_000, flushMs: 600_000 },
      names: /\/journal\.duckdb\.journal-[0-9a-f-]+\.jsonl /,
      loadedBefore: false,
    });
  });

  it('when everything fits but the checkpoint at the end does not: exit 2 naming the file, nothing lost', async () => {
    // A clean run's WAL (about 4 MB) fits in 6 MiB, its checkpointed file (about 12 MB) does
    // not. DuckDB would skip that checkpoint silently at close and leave the data in the WAL.
    const sim = await startSimulator(CATALOGUE);
    try {
      const dbPath = files.path('checkpoint.duckdb');
      const run = await spawnSync(sim, dbPath, {
        config: files.config,
        concurrency: CONCURRENCY,
        fileSizeLimitKb: 6144,
      }).exited;
      expect(run.code, run.output).toBe(EXIT.badInput);
      expect(humanLines(run.output), run.output).toEqual([
        expect.stringMatching(
          /^fragsync sync: DISK_FULL: checkpoint: no room to write \/\S+\/checkpoint\.duckdb \(file size limit reached\)$/,
        ),
      ]);
      expect(sim.ledger().calls).toBe(clean.calls);
      // Every row is in the WAL, and a warehouse with room checkpoints it.
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      await (await Warehouse.open(dbPath)).close();
      expect(existsSync(`${dbPath}.wal`)).toBe(false);
      const runs = await queryWarehouse<{ status: string }>(dbPath, 'SELECT status FROM sync_runs');
      expect(runs.map((r) => r.status)).toEqual(['completed']);
    } finally {
      await sim.close();
    }
  });
});
