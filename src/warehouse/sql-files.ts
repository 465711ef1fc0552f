import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repo's sql/ folder: migrations, merge statements, analyst views. */
export const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

export interface SqlFile {
  name: string;
  sql: string;
}

/** The .sql files of one sql/ subfolder, sorted by name (their numeric prefix is their order). */
export function sqlFiles(folder: 'migrations' | 'merge' | 'views'): SqlFile[] {
  const dir = join(SQL_DIR, folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), 'utf8') }));
}

export function sqlFile(name: string): string {
  return readFileSync(join(SQL_DIR, name), 'utf8');
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** sql/migrations/NNNN_name.sql, in version order; a gap or a duplicate version is a packaging bug. */
export function migrations(): Migration[] {
  const list = sqlFiles('migrations').map((f) => {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(f.name);
    if (!m) throw new Error(`migration file name must be NNNN_name.sql: ${f.name}`);
    return { version: Number(m[1]), name: m[2] as string, sql: f.sql };
  });
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migrations must be numbered 0001.. without gaps: ${m.name}`);
  });
  return list;
}
