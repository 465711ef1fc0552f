import { existsSync, rmSync } from 'node:fs';
import type { Db } from './db.ts';
import { BASELINE, BASELINE_KEPT } from './run-changes.ts';

/**
 * The run's baseline (run-changes.ts) is a temp table of the writer's connection, and a
 * writer lets go of the file during a quota pause or after `loader.releaseIdleMs` without a
 * write: the connection closes and the temp table with it. A run interrupted in a pause then
 * had no baseline and its summary said it read 0 items new, changed or removed, though it had
 * loaded hundreds. So a release writes the baseline to a Parquet file beside the warehouse,
 * and the reopening reads it back. The baseline never changes during a run: it is written at
 * the first release only (BASELINE_KEPT marks a connection whose baseline the file holds).
 */
export function baselinePath(file: string): string {
  return `${file}.run-baseline.parquet`;
}

type Conn = Pick<Db, 'run' | 'all'>;
const lit = (path: string) => `'${path.replaceAll("'", "''")}'`;

async function hasTemp(db: Conn, table: string): Promise<boolean> {
  const [r] = await db.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = '${table}' AND temporary`,
  );
  return Number(r?.n ?? 0) > 0;
}

/**
 * Before the connection closes. `final` (the warehouse closes for good): nothing to keep, the
 * file is removed, as it is when the connection has no baseline (a file a killed run left
 * must never be read back by a later one).
 */
export async function keepBaseline(db: Conn, file: string, final: boolean): Promise<void> {
  const path = baselinePath(file);
  if (final || !(await hasTemp(db, BASELINE))) {
    rmSync(path, { force: true });
    return;
  }
  if (await hasTemp(db, BASELINE_KEPT)) return;
  await db.run(`COPY ${BASELINE} TO ${lit(path)} (FORMAT parquet)`);
}

/** After the connection opens again: the baseline the last release kept, if any. */
export async function restoreBaseline(db: Conn, file: string): Promise<void> {
  const path = baselinePath(file);
  if (!existsSync(path)) return;
  await db.run(`CREATE OR REPLACE TEMP TABLE ${BASELINE} AS SELECT * FROM read_parquet(${lit(path)})`);
  await db.run(`CREATE OR REPLACE TEMP TABLE ${BASELINE_KEPT} AS SELECT 1 AS kept`);
}
