import { existsSync } from 'node:fs';
import { isFragsyncError, oneLine } from '../../errors.ts';
import { EXIT, EXIT_BY_STATUS } from '../exit-codes.ts';
import { extraRunColumns, runHistorySql } from '../../warehouse/run-history.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';

import { outputWidth } from '../output/cell.ts';
import { runningStates } from '../../warehouse/run-liveness.ts';
import { describeHolder, lockHolder } from '../../warehouse/writer-lock.ts';
import { printer, type Format } from '../output/formats.ts';
import { write } from '../output/write.ts';
import { configOf, type CommandInput } from '../spec.ts';
import { PIPE_WIDTH } from './query.ts';

/**
 * `fragsync runs`: the latest runs from sync_runs (warehouse/run-history.ts), with exit codes.
 * A run marked running is shown as it is found (run-liveness.ts): running, died (its process
 * is gone; the next sync records it so), or unknown (its lock is another host's).
 */

/**
 * The exit code each cause gave, as SQL (exitCodeOfRun): 'completed_with_quarantine' gave 8,
 * and so did a run of an earlier version recorded 'completed' with records quarantined. A run
 * still going, or one that died, has none (no process saw its end). What a run quarantined is
 * the count it finished with (sync_run_quarantined): its quarantine rows move to a later run
 * that receives the same invalid record again. Runs of older versions have no count: their rows.
 */
function exitCase(): string {
  const whens = Object.entries(EXIT_BY_STATUS)
    .filter(([status]) => status !== 'running')
    .map(([status, code]) => `WHEN '${status}' THEN ${code}`);
  const records = `coalesce((SELECT k.records + coalesce(k.failed_jobs, 0) FROM sync_run_quarantined k WHERE k.run_id = sync_runs.run_id),
    (SELECT count(*) FROM quarantine q WHERE q.run_id = sync_runs.run_id))`;
  const quarantined = `status = 'completed' AND ${records} > 0`;
  return `CASE WHEN ${quarantined} THEN ${EXIT.quarantined} ELSE CASE status ${whens.join(' ')} END END`;
}

export async function run(input: CommandInput): Promise<number> {
  const { dbPath } = configOf(input);
  // --json as sync, status and plan take it: the runs as one JSON array.
  const format: Format = input.opts.json === true ? 'json' : (input.opts.format as Format);
  const limit = input.opts.limit as number;
  if (!existsSync(dbPath)) {
    console.error(`fragsync runs: no warehouse at ${dbPath} (run a sync first, or pass --db)`);
    return EXIT.badInput;
  }
  let wh: Warehouse | undefined;
  try {
    wh = await Warehouse.open(dbPath, { readOnly: true });
    const { states: running, unknown } = await runningStates(wh, dbPath);
    // Beside the table, not in it: its cause column stays one word for scripts.
    for (const u of unknown) console.error(`fragsync runs: run ${u.runId} is marked running; ${u.why}`);
    const extra = await extraRunColumns(wh);
    const out = printer(format, {
      write,
      maxRows: null,
      width: outputWidth(input.opts.width as number | undefined, process.stdout, process.env, PIPE_WIDTH),
    });
    await wh.streamQuery(
      runHistorySql({ limit: limit === 0 ? null : limit, extra, exitCase: exitCase(), running }),
      out,
    );
    await out.end();
    return EXIT.ok;
  } catch (err) {
    console.error(`fragsync runs: ${heldLine(err, dbPath) ?? oneLine(err)}`);
    return EXIT.badInput;
  } finally {
    await wh?.close().catch(() => undefined);
  }
}

/**
 * DuckDB lets no other process open a file a sync is writing, not even read-only: `runs`
 * cannot read sync_runs then. What it can say is which sync holds the file (its writer lock)
 * and where to watch it: one line, null when the refusal is not a sync's.
 */
function heldLine(err: unknown, dbPath: string): string | null {
  if (!isFragsyncError(err) || err.code !== 'WAREHOUSE_LOCKED') return null;
  const h = lockHolder(dbPath);
  if (!h) return null;
  return `${describeHolder(h)} holds the warehouse now (DuckDB lets no other process read a file being written); \`fragsync status\` shows its state, and \`fragsync runs\` reads the history once it lets go (a quota pause, a quiet moment, its end)`;
}
