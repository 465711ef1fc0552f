import { OVERFLOW_TABLES } from './contract.ts';

/*
 * The rows one run stored in the overflow tables (entries the contract's primary keys cannot
 * hold: tied chart ranks, an id or a label repeated in one list; docs/data-dictionary.md,
 * "Key collisions"). The merge stamps every row it writes with its run (_run_id), and a list
 * read again replaces its rows, so these are the run's rows as they stand. Both readers (the
 * run's summary and `fragsync status`) build their SQL from OVERFLOW_TABLES here, so a table
 * added to the list is counted by both.
 */

/** `(SELECT count(*) ...)` of one overflow table's rows of the run `runId` (an SQL expression). */
const rowsOfRun = (table: string, runId: string) =>
  `(SELECT count(*) FROM ${table} o WHERE o._run_id = ${runId})::INTEGER`;

/** One row per overflow table (table_name, row_count) of the run bound as $1, in OVERFLOW_TABLES' order. */
export const OVERFLOW_IN_RUN_SQL = OVERFLOW_TABLES.map(
  (t) => `SELECT '${t}' AS table_name, ${rowsOfRun(t, '$1')} AS row_count`,
).join('\nUNION ALL\n');

/** An SQL expression: the rows of every overflow table stored by the run `runId` (an SQL expression). */
export const overflowRowsOfRun = (runId: string): string =>
  OVERFLOW_TABLES.map((t) => rowsOfRun(t, runId)).join(' + ');
