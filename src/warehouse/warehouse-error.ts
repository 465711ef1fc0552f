import { FragsyncError, type ErrorContext } from '../errors.ts';

/*
 * The warehouse's errors, apart from db.ts so that code of the fetching thread (the writer
 * lock, the journal, the loader thread's remote end) can name them without loading DuckDB:
 * with the loader thread, DuckDB is the thread's alone, and importing it costs the main
 * thread 0.2-0.4 s before a run can open its warehouse.
 */

/** A failure of the warehouse file: locked, unreadable, full disk or a failed statement. */
export class WarehouseError extends FragsyncError {
  constructor(
    code: 'WAREHOUSE' | 'WAREHOUSE_LOCKED' | 'DISK_FULL',
    message: string,
    context: ErrorContext = {},
    cause?: unknown,
  ) {
    super(code, message, { context, cause, transient: code === 'DISK_FULL' });
  }
}

/**
 * No room to write: a full filesystem (ENOSPC), or a file that may not grow further (EFBIG:
 * the process's file-size limit, or the filesystem's largest file). For the user both mean
 * the same: make room, run again; the journal keeps what was fetched.
 */
const DISK_FULL =
  /no space left on device|disk (is )?full|ENOSPC|could not write all bytes|file too large|EFBIG/i;
const TOO_LARGE = /file too large|EFBIG/i;
/** The file a DuckDB write error names (often the WAL beside the warehouse, not the warehouse). */
const WRITTEN_FILE = /could not write (?:all bytes )?(?:to )?file "([^"]+)"/i;
const LOCKED = /could not set lock on file|conflicting lock/i;

/** Maps a DuckDB error to one clear line; the raw message stays as `cause`. */
export function toWarehouseError(err: unknown, what: string, path: string): WarehouseError {
  if (err instanceof WarehouseError) return err;
  const raw = err instanceof Error ? err.message : String(err);
  const first = raw.split('\n')[0] ?? raw;
  if (DISK_FULL.test(raw)) {
    const file = WRITTEN_FILE.exec(raw)?.[1] ?? path;
    const why = TOO_LARGE.test(raw) ? 'file size limit reached' : 'disk full';
    return new WarehouseError('DISK_FULL', `${what}: no room to write ${file} (${why})`, { path: file }, err);
  }
  if (LOCKED.test(raw)) {
    const pid = /PID (\d+)/i.exec(raw)?.[1];
    const by = pid ? ` (held by process ${pid})` : '';
    return new WarehouseError(
      'WAREHOUSE_LOCKED',
      `${what}: ${path} is in use by another process${by}; DuckDB allows one writer per file`,
      { path },
      err,
    );
  }
  return new WarehouseError('WAREHOUSE', `${what}: ${first}`, { path }, err);
}
