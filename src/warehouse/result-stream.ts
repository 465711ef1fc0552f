import {
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { ConfigError } from '../errors.ts';

/**
 * An analyst's query streamed chunk by chunk (2,048 rows at most each), so that printing a
 * result of any size holds one chunk in memory, not the result.
 */

export interface ResultColumn {
  name: string;
  /** DuckDB's SQL name of the type, lower case as the DuckDB shell shows it: `varchar[]`. */
  type: string;
  /** Numbers are right-aligned in a table. */
  numeric: boolean;
}

export interface ResultSink {
  /**
   * 'text': each value as DuckDB prints it (lists `[a, b]`, structs `{'k': 1}`, timestamps
   * `2024-01-02 03:04:05+00`), NULL as null. 'json': JSON-safe values (lists as arrays,
   * structs as objects, 64/128-bit integers and decimals as numbers when exact, else strings).
   */
  readonly as: 'text' | 'json';
  columns(columns: readonly ResultColumn[]): void;
  /** May return a promise to hold the stream back (a slow pipe). */
  rows(rows: readonly (readonly unknown[])[]): void | Promise<void>;
}

const NUMERIC = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
]);
const FLOATING = new Set<DuckDBTypeId>([DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE]);
/** Rendered as strings by the JSON converter; numbers here when the number is exact. */
const EXACT_AS_STRING = new Set<DuckDBTypeId>([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
]);

/**
 * Runs `sql`, one statement, and streams its result; resolves with the row count. Several
 * statements are refused before any runs: DuckDB would run them all and return only the last
 * result, so `SELECT 1; SELECT 2` printed 2 alone, and one printer (a CSV header, a JSON
 * array) cannot hold several results with their own columns.
 */
export async function streamResult(conn: DuckDBConnection, sql: string, sink: ResultSink): Promise<number> {
  const statements = await statementCount(conn, sql);
  if (statements !== 1) throw new StatementCountError(statements);
  const result = await conn.stream(sql);
  const types = result.columnTypes();
  sink.columns(
    result.columnNames().map((name, i) => {
      const type = types[i] as DuckDBType;
      return { name, type: type.toString().toLowerCase(), numeric: NUMERIC.has(type.typeId) };
    }),
  );
  let count = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    count += chunk.rowCount;
    if (sink.as === 'json') await sink.rows(jsonRows(chunk.convertRows(JsonDuckDBValueConverter), types));
    else await sink.rows(chunk.getRows().map((row) => row.map((v, i) => textOf(v, types[i] as DuckDBType))));
  }
  return count;
}

async function statementCount(conn: DuckDBConnection, sql: string): Promise<number> {
  try {
    return (await conn.extractStatements(sql)).count;
  } catch (err) {
    // The node API fails with this bare message on SQL of no statement (`;;`, a comment only).
    if (err instanceof Error && err.message === 'Error in native callback') return 0;
    throw err;
  }
}

/** The SQL given was not one statement: the analyst's to fix, said as one line. */
export class StatementCountError extends ConfigError {
  constructor(readonly statements: number) {
    super(
      statements === 0
        ? 'no SQL statement to run (only comments or semicolons)'
        : `the SQL holds ${statements} statements; one query runs one (send each on its own, ` +
            'or join the results with UNION ALL or a WITH clause)',
      { statements },
    );
  }
}

function textOf(value: DuckDBValue, type: DuckDBType): string | null {
  if (value === null) return null;
  if (typeof value === 'string') return value;
  // The DuckDB shell prints a whole double as 1.0; JS would print 1.
  if (typeof value === 'number' && FLOATING.has(type.typeId) && Number.isInteger(value))
    return value.toFixed(1);
  return String(value);
}

function jsonRows(rows: unknown[][], types: readonly DuckDBType[]): unknown[][] {
  const exact = types.map((t) => EXACT_AS_STRING.has(t.typeId));
  if (!exact.includes(true)) return rows;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (!exact[i] || typeof v !== 'string') continue;
      const n = Number(v);
      if (Number.isFinite(n) && sameNumber(n, v)) row[i] = n;
    }
  }
  return rows;
}

/** True when `n` prints back as the decimal text `text` (no digit lost to a double). */
function sameNumber(n: number, text: string): boolean {
  if (Number.isInteger(n) && !text.includes('.')) return Number.isSafeInteger(n);
  const [int = '', frac = ''] = text.replace(/^-/, '').split('.');
  return int.replace(/^0+/, '').length + frac.length <= 15;
}
