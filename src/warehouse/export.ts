import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { ensureWritableDir } from '../util/writable-dir.ts';
import { basename, dirname, join } from 'node:path';
import { rows, type Db } from './db.ts';
import { toWarehouseError } from './warehouse-error.ts';
import { EXPORTED_TABLES, isLineageColumn } from './contract.ts';
import { checkExportTarget, EXPORT_FILES } from './export-target.ts';
import { useDefaultMemoryLimit } from './memory-limit.ts';

export interface ExportResult {
  dir: string;
  /** Rows written per table. */
  tables: Record<string, number>;
}

const quoteLiteral = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const quoteIdent = (s: string): string => `"${s.replaceAll('"', '""')}"`;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Writes every contract table to DIR/<table>.parquet with the contract's columns (no lineage),
 * and the overflow tables beside them (the entries the contract's keys cannot hold).
 *
 * Guarantees: all tables come from one read transaction (one consistent snapshot, even if a
 * load commits meanwhile); files are written into a fresh sibling folder and only renamed to
 * DIR when all are complete, so a reader never sees a half-written file or a mix of two
 * exports. Replacing an existing DIR takes two renames (DIR -> DIR.old-*, new -> DIR): in
 * the microseconds between them DIR is absent. A failed export leaves DIR as it was.
 *
 * DIR may be new, empty, or an earlier export (nothing but `<exported table>.parquet` files);
 * anything else is refused before a table is read (checkExportTarget): an export never
 * deletes a file it did not write. Of a replaced export only those files are deleted.
 */
export async function exportParquet(db: Db, dir: string): Promise<ExportResult> {
  const target = checkExportTarget(dir);
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = join(dirname(target), `.${basename(target)}.tmp-${suffix}`);
  // The parent is created and tried first: a recursive mkdir can spin forever (writable-dir.ts).
  ensureWritableDir(dirname(target), 'Parquet export folder');
  await mkdir(staging);
  const tables: Record<string, number> = {};
  try {
    await db.exclusive(async (c) => {
      // The loader's session runs DuckDB on one thread with a bounded memory (sql/session.sql);
      // writing Parquet is one big scan per table, where every core helps, and a writer per
      // core buffers its row groups: both are DuckDB's defaults while it runs, restored after.
      const [session] = await rows<{ threads: string; memory: string }>(
        c,
        "SELECT current_setting('threads')::VARCHAR AS threads, current_setting('memory_limit') AS memory",
      );
      await c.run('RESET threads');
      await useDefaultMemoryLimit((sql) => rows(c, sql));
      await c.run('BEGIN TRANSACTION');
      try {
        for (const table of EXPORTED_TABLES) {
          const cols = await rows<{ column_name: string }>(
            c,
            `SELECT column_name FROM duckdb_columns()
             WHERE schema_name = 'main' AND table_name = $1 ORDER BY column_index`,
            [table],
          );
          const list = cols.map((r) => r.column_name).filter((n) => !isLineageColumn(n));
          const file = join(staging, `${table}.parquet`);
          await c.run(
            `COPY (SELECT ${list.map(quoteIdent).join(', ')} FROM ${quoteIdent(table)})
             TO ${quoteLiteral(file)} (FORMAT parquet)`,
          );
          const [count] = await rows<{ n: number }>(
            c,
            `SELECT count(*)::BIGINT AS n FROM ${quoteIdent(table)}`,
          );
          tables[table] = Number(count?.n ?? 0);
        }
      } finally {
        await c.run('COMMIT');
        await c.run(`SET threads = ${Number(session?.threads ?? 1) || 1}`);
        await c.run(`SET memory_limit = ${quoteLiteral(session?.memory ?? '160MB')}`);
      }
    });
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw toWarehouseError(err, 'export failed', target);
  }
  const old = join(dirname(target), `.${basename(target)}.old-${suffix}`);
  const replacing = await exists(target);
  if (replacing) await rename(target, old);
  await rename(staging, target);
  if (replacing) await removeExport(old);
  return { dir: target, tables };
}

/** The earlier export moved aside: its files only. A file someone added meanwhile stays, and so does the folder. */
async function removeExport(old: string): Promise<void> {
  for (const name of await readdir(old)) if (EXPORT_FILES.has(name)) await unlink(join(old, name));
  await rmdir(old).catch(() => undefined);
}
