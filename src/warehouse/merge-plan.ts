import type { SqlFile } from './sql-files.ts';

/** One statement of a sql/merge file, with the batch tables it reads and the table it writes. */
export interface MergeStatement {
  sql: string;
  /** The work table (`w_*`) it creates, if it is a CREATE TEMP TABLE ... AS. */
  creates: string | null;
  /** Staging and work tables it reads. */
  reads: string[];
  /** The warehouse table it inserts into, updates or deletes from. */
  writes: string | null;
}

const BATCH_TABLE = /\b(stg_[a-z_]+|w_[a-z_]+)\b/g;
const CREATES = /^CREATE OR REPLACE TEMP TABLE (w_[a-z_]+)\b/;
const WRITES = /^(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_]+)\b/;

/** Splits merge files into statements (no statement has a `;` at a line end inside a literal). */
export function parseMerge(files: readonly SqlFile[]): MergeStatement[] {
  return files.flatMap((f) =>
    f.sql
      .split(/;[ \t]*(?:\n|$)/)
      .map((chunk) => ({ chunk, sql: chunk.replace(/--[^\n]*/g, '').trim() }))
      .filter(({ sql }) => sql.length > 0)
      .map(({ chunk, sql }) => {
        const creates = CREATES.exec(sql)?.[1] ?? null;
        // `-- empty unless: t1, t2` narrows the inputs that can give the statement rows (a
        // table it only LEFT JOINs or ANTI JOINs cannot).
        const driven = /--\s*empty unless:\s*([a-z_, ]+)/.exec(chunk)?.[1];
        const all = driven ? driven.split(',').map((t) => t.trim()) : (sql.match(BATCH_TABLE) ?? []);
        const reads = [...new Set(all)].filter((t) => t !== creates);
        const writes = creates ? null : (WRITES.exec(sql)?.[1] ?? null);
        return { sql, creates, reads, writes };
      }),
  );
}

export interface BatchPlan {
  /** The statements to run, in file order, as one multi-statement string. */
  sql: string;
  /** Warehouse tables the batch may write (the others certainly get no row from it). */
  writes: Set<string>;
  /** Work tables that may hold rows once the batch commits. */
  filled: Set<string>;
}

/**
 * Every merge statement is driven by batch tables: when all of them are empty it changes
 * nothing, so it is skipped (a batch of reviews does not run the brand or removal merges).
 * A work table is still re-created when it may hold the rows of an earlier batch, so a
 * statement that runs never reads stale rows. `filled` is the caller's record of those.
 * `skip` drops statements the caller knows change nothing (see stored-keys.ts).
 */
export function planBatch(
  statements: readonly MergeStatement[],
  nonEmptyStaging: ReadonlySet<string>,
  filled: ReadonlySet<string>,
  skip: (st: MergeStatement) => boolean = () => false,
): BatchPlan {
  const live = new Set(nonEmptyStaging);
  const nextFilled = new Set<string>();
  const writes = new Set<string>();
  const run: string[] = [];
  for (const st of statements) {
    // A statement that reads no batch table is not driven by the batch: it always runs.
    const needed = st.reads.length === 0 || st.reads.some((t) => live.has(t));
    if (st.creates) {
      if (needed) {
        live.add(st.creates);
        nextFilled.add(st.creates);
      }
      if (needed || filled.has(st.creates)) run.push(st.sql);
    } else if (needed && !skip(st)) {
      run.push(st.sql);
      if (st.writes) writes.add(st.writes);
    }
  }
  return { sql: run.map((s) => `${s};`).join('\n'), writes, filled: nextFilled };
}

/** The arms of sql/load-counts.sql (one `SELECT ... FROM <table> WHERE ...` per table). */
export interface CountArm {
  table: string;
  key: string;
  sql: string;
}

export function parseCounts(sql: string): CountArm[] {
  return sql
    .replace(/--[^\n]*/g, '')
    .replace(/;\s*$/, '')
    .split(/\bUNION ALL\b/)
    .map((arm) => {
      const m = /^\s*SELECT '([a-z_]+)'(?: AS t)?, count\(\*\)(?: AS n)? FROM ([a-z_]+) WHERE (.+)$/s.exec(
        arm,
      );
      if (!m) throw new Error(`load-counts.sql: unexpected arm ${arm.trim()}`);
      const [, key, table, where] = m as unknown as [string, string, string, string];
      return { table, key, sql: `SELECT '${key}' AS t, count(*) AS n FROM ${table} WHERE ${where.trim()}` };
    });
}
