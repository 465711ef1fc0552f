import {
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBTypeId,
  INTEGER,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';

import { toWarehouseError } from './warehouse-error.ts';

const NOT_A_DATABASE =
  'not a DuckDB database file (DuckDB reads it as data and would keep the warehouse in memory)';

export type ColumnType = 'VARCHAR' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN';
export type Cell = string | number | boolean | null;

/**
 * One connection with every statement serialized through a promise queue: DuckDB's node
 * bindings crash when two queries run at once on one connection, and callers (loader,
 * planner reads, exports) arrive concurrently from the event loop.
 */
export class Db {
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    readonly path: string,
  ) {}

  static async open(path: string, readOnly: boolean): Promise<Db> {
    try {
      // A file this creates uses the v1.2 storage format: with DuckDB's default (v0.10), every
      // checkpoint converts the primary-key indexes to the old layout first (seen in a CPU
      // profile of a replayed 20k sync). The price: reading the file needs DuckDB 1.2 or later.
      const options: Record<string, string> = readOnly
        ? { access_mode: 'READ_ONLY' }
        : { storage_compatibility_version: 'v1.2.0' };
      const instance = await DuckDBInstance.create(path, options);
      const conn = await instance.connect();
      const db = new Db(instance, conn, path);
      // Read-only, DuckDB refuses such a file itself (below).
      if (path !== ':memory:' && !readOnly) await db.refuseDataFile();
      // Day boundaries (spendOnDay, snapshot dates) are UTC whatever the host's zone.
      await db.run("SET TimeZone = 'UTC'");
      return db;
    } catch (err) {
      // Read-only, DuckDB itself refuses the in-memory database a data file opens as.
      if (err instanceof Error && /Cannot launch in-memory database in read-only mode/i.test(err.message))
        throw toWarehouseError(new Error(NOT_A_DATABASE), 'cannot open warehouse', path);
      throw toWarehouseError(err, 'cannot open warehouse', path);
    }
  }

  /**
   * DuckDB opens an existing .json, .csv or .parquet file as data: an in-memory database with
   * the file as a view. A warehouse there would be written to memory and lost at the end of a
   * paid sync, so a database without a file is refused before anything is fetched.
   */
  private async refuseDataFile(): Promise<void> {
    const [db] = await this.all<{ path: string | null }>(
      'SELECT path FROM duckdb_databases() WHERE database_name = current_database()',
    );
    if (db?.path) return;
    this.conn.closeSync();
    this.instance.closeSync();
    throw new Error(NOT_A_DATABASE);
  }

  /** Runs `fn` alone on the connection: nothing else interleaves until it settles. */
  exclusive<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const next = this.tail.then(() => fn(this.conn));
    this.tail = next.catch(() => undefined);
    return next;
  }

  run(sql: string, params: DuckDBValue[] = []): Promise<void> {
    return this.exclusive(async (c) => {
      await c.run(sql, params);
    });
  }

  all<T = Record<string, unknown>>(sql: string, params: DuckDBValue[] = []): Promise<T[]> {
    return this.exclusive((c) => rows<T>(c, sql, params));
  }

  async close(): Promise<void> {
    await this.exclusive(async (c) => {
      c.closeSync();
      this.instance.closeSync();
    });
  }
}

/** Connection-level helpers used inside `Db.exclusive` (no queueing of their own). */
const WIDE_INTEGERS = new Set<DuckDBTypeId>([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
]);

/**
 * JSON-safe rows. The JSON converter renders 64/128-bit integers as strings (JS numbers
 * cannot hold them all); `count(*)` is BIGINT, so top-level wide integers that fit a double
 * exactly come back as numbers and only larger ones stay strings.
 */
export async function rows<T>(conn: DuckDBConnection, sql: string, params: DuckDBValue[] = []): Promise<T[]> {
  const reader = await conn.runAndReadAll(sql, params);
  const out = reader.getRowObjectsJson();
  const names = reader.columnNames();
  const wide = reader
    .columnTypes()
    .map((t, i) => (WIDE_INTEGERS.has(t.typeId) ? names[i] : undefined))
    .filter((n): n is string => n !== undefined);
  if (wide.length > 0) {
    for (const row of out) {
      for (const name of wide) {
        const v = row[name];
        if (typeof v === 'string' && Number.isSafeInteger(Number(v))) row[name] = Number(v);
      }
    }
  }
  return out as T[];
}

/** Rows per event-loop yield: bounds how long one synchronous append burst blocks the event loop. */
const YIELD_EVERY_ROWS = 20_000;
/** DuckDB's vector size: the most rows one data chunk holds. */
const CHUNK_ROWS = 2048;
const DUCK_TYPES = { VARCHAR, INTEGER, DOUBLE, BOOLEAN } as const;

/**
 * Appends staged rows to a temp staging table with DuckDB's appender (the only fast insert
 * path), a data chunk of up to 2,048 rows at a time: columns are filled as whole vectors,
 * straight from the staged columns, which costs far fewer native calls than appending value
 * by value and allocates nothing per row.
 */
export async function appendRows(
  conn: DuckDBConnection,
  table: string,
  types: readonly ColumnType[],
  data: { readonly cols: readonly (readonly Cell[])[]; readonly length: number },
): Promise<void> {
  if (data.length === 0) return;
  const duckTypes = types.map((t) => DUCK_TYPES[t]);
  const appender = await conn.createAppender(table, 'main', 'temp');
  try {
    let sinceYield = 0;
    for (let off = 0; off < data.length; off += CHUNK_ROWS) {
      const n = Math.min(CHUNK_ROWS, data.length - off);
      const chunk = DuckDBDataChunk.create(duckTypes, n);
      for (let col = 0; col < types.length; col++) {
        const values = data.cols[col]!;
        const vector = chunk.getColumnVector(col);
        for (let i = 0; i < n; i++) vector.setItem(i, values[off + i] ?? null);
        vector.flush();
      }
      appender.appendDataChunk(chunk);
      sinceYield += n;
      if (sinceYield >= YIELD_EVERY_ROWS) {
        appender.flushSync();
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
