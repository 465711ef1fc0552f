import type { Db } from './db.ts';
import type { RecordedStatus } from '../domain/run.ts';
import type { RunIntent } from './handle.ts';
import { sqlFile } from './sql-files.ts';
import { WarehouseError } from './warehouse-error.ts';

/*
 * A run's own rows (sync_runs, its mode, the freshness policy it ran with, its clock), opened
 * and closed on the loader's connection (Warehouse.startRun, finishRun): they are written
 * between the loader's batches, never inside one.
 */

/**
 * Opens a run's row with its mode, and records the freshness policy it runs with (the
 * `freshness` view judges ages by it).
 */
export async function openRunRows(db: Db, runId: string, startedAt: Date, intent: RunIntent): Promise<void> {
  await db.run(sqlFile('runs/start.sql'), [runId, startedAt.toISOString()]);
  await db.run(
    'INSERT INTO sync_run_modes VALUES ($1, $2) ON CONFLICT (run_id) DO UPDATE SET mode = excluded.mode',
    [runId, intent.mode],
  );
  for (const p of intent.policy)
    await db.run(
      `INSERT INTO freshness_policy VALUES ($1, $2, $3, $4::TIMESTAMPTZ)
       ON CONFLICT (entity, dataset) DO UPDATE SET max_age_hours = excluded.max_age_hours, updated_at = excluded.updated_at`,
      [p.entity, p.dataset, p.maxAgeHours, startedAt.toISOString()],
    );
}

/**
 * Closes a run; its calls and cents are computed from the ledger, never trusted from memory.
 * `clockOffsetMs` (the service's Date minus this machine's clock, as the run's responses
 * showed it; null when none was answered) is kept in sync_run_clocks: ages are judged by it.
 */
export async function closeRunRows(
  db: Db,
  runId: string,
  status: RecordedStatus,
  finishedAt: Date,
  clockOffsetMs: number | null,
): Promise<void> {
  const [known] = await db.all<{ n: number }>(
    'SELECT count(*)::INTEGER AS n FROM sync_runs WHERE run_id = $1',
    [runId],
  );
  if (!known || known.n === 0)
    throw new WarehouseError('WAREHOUSE', `finishRun: unknown run ${runId}`, { runId });
  await db.run(sqlFile('runs/finish.sql'), [runId, status, finishedAt.toISOString()]);
  await db.run(sqlFile('runs/refresh-late.sql'), [runId]);
  await db.run(sqlFile('runs/quarantined.sql'), [runId]);
  if (clockOffsetMs !== null)
    await db.run(sqlFile('runs/clock.sql'), [runId, Math.round(clockOffsetMs), finishedAt.toISOString()]);
}
