import type { Db } from './db.ts';
import { migrations, sqlFiles } from './sql-files.ts';

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`;

export async function appliedVersions(db: Db): Promise<number[]> {
  const exists = await db.all<{ n: number }>(
    "SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'schema_migrations'",
  );
  if ((exists[0]?.n ?? 0) === 0) return [];
  const rows = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((r) => r.version);
}

/**
 * Applies pending migrations in order, each in its own transaction with its ledger row, so
 * a crash leaves the file at a clean version. Files are append-only: a warehouse made by an
 * older version is upgraded in place. `upTo` exists for tests of that upgrade path.
 */
export async function migrate(db: Db, opts: { upTo?: number } = {}): Promise<number[]> {
  await db.run(LEDGER);
  const done = new Set(await appliedVersions(db));
  const applied: number[] = [];
  for (const m of migrations()) {
    if (done.has(m.version) || (opts.upTo !== undefined && m.version > opts.upTo)) continue;
    await db.exclusive(async (c) => {
      await c.run('BEGIN TRANSACTION');
      try {
        await c.run(m.sql);
        await c.run('INSERT INTO schema_migrations VALUES ($1, $2, now())', [m.version, m.name]);
        await c.run('COMMIT');
      } catch (err) {
        await c.run('ROLLBACK');
        throw err;
      }
    });
    applied.push(m.version);
  }
  return applied;
}

/** Views are derived: replaced at every read-write open, so a changed view needs no migration. */
export async function createViews(db: Db): Promise<void> {
  for (const v of sqlFiles('views')) await db.run(v.sql);
}

export function latestVersion(): number {
  return migrations().length;
}
