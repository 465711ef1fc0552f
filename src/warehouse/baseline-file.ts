import { rmSync } from 'node:fs';
import type { Db } from './db.ts';
import { BASELINE, runChanges, takeBaseline, type RunChanges } from './run-changes.ts';

/**
 * The run's baseline (run-changes.ts) is a temp table of the writer's connection, and a
 * writer lets go of the file during a quota pause or after `loader.releaseIdleMs` without a
 * write: the connection closes and the temp table with it. A run interrupted in a pause then
 * had no baseline and its summary said it read 0 items new, changed or removed, though it had
 * loaded hundreds. So a release writes the baseline to a Parquet file beside the warehouse,
 * once (it never changes during a run), and the summary reads it back when it compares.
 *
 * Only the summary reads it: a reopen does not restore it (it did, eagerly: a temp table of
 * ~190 MB at 120k fragrances and two duckdb_tables probes at every reopen after an idle
 * release or a quota pause). Where it is lives here, in this process, not in probes of the
 * connection; `restores` counts the reads back (test/warehouse/baseline-lazy.test.ts).
 */
export function baselinePath(file: string): string {
  return `${file}.run-baseline.parquet`;
}

type Conn = Pick<Db, 'run' | 'all'>;
const lit = (path: string) => `'${path.replaceAll("'", "''")}'`;

/** One writer's run baseline: on its open connection, in the file beside the warehouse, or both. */
export class RunBaseline {
  /** The temp table is on the connection open now. */
  private onConnection = false;
  /** The file holds this run's baseline (a file this process did not write is never read). */
  private kept = false;
  /** Times the baseline was read back from the file. */
  restores = 0;

  /** A file a killed run left behind is removed as the writer opens: it is never read back. */
  constructor(private readonly file: string) {
    rmSync(baselinePath(file), { force: true });
  }

  /** The tables as this run finds them, on the connection (replaces any earlier baseline). */
  async take(db: Conn): Promise<void> {
    await takeBaseline(db);
    this.onConnection = true;
    this.forget();
  }

  /** Before the connection closes: kept in the file at the first release; `final`: removed. */
  async beforeClose(db: Conn, final: boolean): Promise<void> {
    const onConnection = this.onConnection;
    this.onConnection = false;
    if (final) return this.forget();
    if (!onConnection || this.kept) return;
    try {
      await db.run(`COPY ${BASELINE} TO ${lit(baselinePath(this.file))} (FORMAT parquet)`);
      this.kept = true;
    } catch (err) {
      // One that cannot be written (no room) is not kept half-made.
      this.forget();
      throw err;
    }
  }

  /** The tables now against the baseline (read back if a release let it go); null: none taken. Drops it. */
  async changes(db: Conn): Promise<RunChanges | null> {
    if (!this.onConnection && this.kept) {
      await db.run(
        `CREATE OR REPLACE TEMP TABLE ${BASELINE} AS SELECT * FROM read_parquet(${lit(baselinePath(this.file))})`,
      );
      this.restores++;
      this.onConnection = true;
    }
    if (!this.onConnection) return null;
    const changes = await runChanges(db);
    this.onConnection = false;
    this.forget();
    return changes;
  }

  private forget(): void {
    this.kept = false;
    rmSync(baselinePath(this.file), { force: true });
  }
}
