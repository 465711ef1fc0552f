import type { SqlFile } from './sql-files.ts';

/** What a merge statement does to its table (its header's verb). */
export type MergeVerb = 'creates' | 'inserts' | 'updates' | 'deletes';

/**
 * One statement of a sql/merge file, as its header declares it. Each statement is preceded
 * by one line
 *
 *     -- merge: <verb> <table> | reads <t>, <t> | looks up <t>, <t>
 *
 * naming what it writes (`creates` a work table `w_*`; `inserts`, `updates` or `deletes` a
 * warehouse table) and the batch tables (staging `stg_*` and work tables) it reads: those
 * that drive it, which it needs a row of to change anything, and those it only looks up
 * (a LEFT or ANTI JOIN). test/warehouse/merge-headers.test.ts checks every header against
 * what DuckDB binds and what the statement changes, with and without its drivers.
 */
export interface MergeStatement {
  /** The statement as written, with its `;` and any comments after its header. */
  sql: string;
  verb: MergeVerb;
  /** The table it creates (a work table) or writes. */
  table: string;
  /** The batch tables that drive it: when all of them are empty, it changes nothing. */
  reads: string[];
  /** Batch tables it reads without being driven by them. */
  looksUp: string[];
  /** Where it is written, for messages: file:line of its header. */
  at: string;
  /**
   * An upsert (`inserts` with `ON CONFLICT ... DO UPDATE`) as a plain INSERT: what it runs as
   * when no row it inserts can conflict (stored-keys.ts). Cut once here, not per batch.
   */
  plainSql?: string;
}

const HEADER = '-- merge:';
/** An upsert's conflict clause, up to the end of the statement. */
const ON_CONFLICT = /\nON CONFLICT \([^)]*\) DO UPDATE SET[^;]*;/;
const VERBS: readonly MergeVerb[] = ['creates', 'inserts', 'updates', 'deletes'];

/**
 * Splits merge files at their statement headers. Text before a file's first header is its
 * introduction; the text after a header, up to the next one, is that statement (comments
 * about the next statement included, which is harmless).
 */
export function parseMerge(files: readonly SqlFile[]): MergeStatement[] {
  const out: MergeStatement[] = [];
  for (const f of files) {
    const lines = f.sql.split('\n');
    let current: Omit<MergeStatement, 'sql'> | null = null;
    let body: string[] = [];
    const flush = () => {
      if (current) out.push(withPlainSql({ ...current, sql: body.join('\n').trim() }));
      body = [];
    };
    lines.forEach((line, i) => {
      if (!line.startsWith(HEADER)) return void body.push(line);
      flush();
      current = parseHeader(line.slice(HEADER.length), `${f.name}:${i + 1}`);
    });
    flush();
  }
  return out;
}

function withPlainSql(st: MergeStatement): MergeStatement {
  if (st.verb !== 'inserts' || !ON_CONFLICT.test(st.sql)) return st;
  return { ...st, plainSql: st.sql.replace(ON_CONFLICT, ';') };
}

function parseHeader(text: string, at: string): Omit<MergeStatement, 'sql'> {
  const [what = '', ...clauses] = text.split('|').map((c) => c.trim());
  const [verb, table, ...extra] = what.split(/\s+/);
  if (!VERBS.includes(verb as MergeVerb) || !table || extra.length > 0)
    throw new Error(`${at}: a merge header starts with one of ${VERBS.join(', ')} and a table`);
  const lists: Record<string, string[]> = { reads: [], 'looks up': [] };
  for (const clause of clauses) {
    const key = Object.keys(lists).find((k) => clause.startsWith(`${k} `));
    if (!key) throw new Error(`${at}: unknown merge header clause "${clause}"`);
    lists[key] = clause
      .slice(key.length)
      .split(',')
      .map((t) => t.trim());
  }
  return { verb: verb as MergeVerb, table, reads: lists.reads!, looksUp: lists['looks up']!, at };
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
 * `skip` drops statements the caller knows change nothing, and `rewrite` gives the SQL a
 * statement runs as (see stored-keys.ts).
 */
export function planBatch(
  statements: readonly MergeStatement[],
  nonEmptyStaging: ReadonlySet<string>,
  filled: ReadonlySet<string>,
  skip: (st: MergeStatement) => boolean = () => false,
  rewrite: (st: MergeStatement) => string = (st) => st.sql,
): BatchPlan {
  const live = new Set(nonEmptyStaging);
  const nextFilled = new Set<string>();
  const writes = new Set<string>();
  const run: string[] = [];
  for (const st of statements) {
    // A statement that reads no batch table is not driven by the batch: it always runs.
    const needed = st.reads.length === 0 || st.reads.some((t) => live.has(t));
    if (st.verb === 'creates') {
      if (needed) {
        live.add(st.table);
        nextFilled.add(st.table);
      }
      if (needed || filled.has(st.table)) run.push(st.sql);
    } else if (needed && !skip(st)) {
      run.push(rewrite(st));
      writes.add(st.table);
    }
  }
  return { sql: run.join('\n'), writes, filled: nextFilled };
}

/**
 * Rows the current batch wrote, per table: every row a batch inserts or replaces carries
 * the batch's load time, in its lineage column or the table's own time column, named here.
 * The load time is compared as a constant (not batch_at()): DuckDB then skips row groups by
 * their min/max, so a count does not scan the older rows of large tables. Only the tables
 * the batch's statements wrote are counted; the others are 0.
 */
export const LOAD_TIME_COLUMN: Readonly<Record<string, string>> = {
  fragrances: '_loaded_at',
  fragrance_notes: '_loaded_at',
  fragrance_accords: '_loaded_at',
  brands: '_loaded_at',
  brand_fragrances: '_loaded_at',
  perfumers: '_loaded_at',
  notes: '_loaded_at',
  accords: '_loaded_at',
  charts: '_loaded_at',
  chart_entries: '_loaded_at',
  reviews: '_loaded_at',
  similar_fragrances: '_loaded_at',
  wearing_stats: '_loaded_at',
  wearing_moods: '_loaded_at',
  wearing_occasions: '_loaded_at',
  similar_fragrances_overflow: '_loaded_at',
  wearing_labels_overflow: '_loaded_at',
  chart_entries_overflow: '_loaded_at',
  api_calls: '_loaded_at',
  review_digests: 'fetched_at',
  quarantine: '"at"',
  removed_entities: 'removed_at',
};

/** One query counting, per table of `tables`, the rows loaded at `at` (an ISO time we made). */
export function loadCountsSql(tables: readonly string[], at: Date): string {
  const time = `'${at.toISOString()}'::TIMESTAMPTZ`;
  return tables
    .map((t) => `SELECT '${t}' AS t, count(*) AS n FROM ${t} WHERE ${LOAD_TIME_COLUMN[t]} = ${time}`)
    .join('\nUNION ALL ');
}
