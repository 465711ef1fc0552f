import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, isFragsyncError, oneLine } from '../../errors.ts';
import { StatementCountError } from '../../warehouse/result-stream.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { outputWidth } from '../output/cell.ts';
import { printer, type Format } from '../output/formats.ts';
import { write } from '../output/write.ts';
import { configOf, type CommandInput } from '../spec.ts';

/** Rows a table shows by default (the first and the last 20), as the DuckDB shell does. */
export const TABLE_MAX_ROWS = 40;
/** Width of a table written to something that is not a terminal, without --width or $COLUMNS. */
export const PIPE_WIDTH = 160;

/** `fragsync query`: one read-only query for analysts, as a table, CSV, JSON or Markdown. */
export async function run(input: CommandInput): Promise<number> {
  const { dbPath } = configOf(input);
  const opts = input.opts;
  const sql = readSql(input.args[0], opts.file as string | undefined);
  const format: Format = opts.json ? 'jsonl' : (opts.format as Format);
  const maxRows = (opts.maxRows as number | undefined) ?? (format === 'table' ? TABLE_MAX_ROWS : 0);
  if (!existsSync(dbPath)) {
    console.error(`fragsync query: no warehouse at ${dbPath} (run a sync first, or pass --db)`);
    return EXIT.badInput;
  }
  const out = printer(format, {
    write,
    maxRows: maxRows === 0 ? null : maxRows,
    width: outputWidth(opts.width as number | undefined, process.stdout, process.env, PIPE_WIDTH),
  });
  let wh: Warehouse | undefined;
  try {
    wh = await Warehouse.open(dbPath, { readOnly: true });
    await wh.streamQuery(sql, out);
    await out.end();
  } catch (err) {
    console.error(`fragsync query: ${refusedSql(err) ?? oneLine(err)}`);
    return EXIT.badInput;
  } finally {
    await wh?.close().catch(() => undefined);
  }
  if (format !== 'table' && out.printed < out.total)
    console.error(`fragsync query: ${out.printed} of ${out.total} rows printed (--max-rows ${maxRows})`);
  return EXIT.ok;
}

/** The SQL: the argument, the file of --file, or standard input (`-`, or no argument on a pipe). */
function readSql(arg: string | undefined, file: string | undefined): string {
  if (arg !== undefined && arg !== '-' && file !== undefined)
    throw new ConfigError('give the SQL either as an argument or with --file, not both');
  if (file !== undefined) return readText(file, `--file ${file}`);
  if (arg !== undefined && arg !== '-') return arg;
  if (arg === undefined && process.stdin.isTTY)
    throw new ConfigError('no SQL: give it as an argument, with --file FILE, or on standard input');
  return readText(0, 'standard input');
}

function readText(from: string | 0, what: string): string {
  let text: string;
  try {
    text = readFileSync(from, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read the SQL from ${what} (${(err as NodeJS.ErrnoException).code ?? oneLine(err)})`,
    );
  }
  if (text.trim() === '') throw new ConfigError(`no SQL in ${what}`);
  return text;
}

/**
 * DuckDB's own words for SQL it refused (a parser, binder, catalog or conversion error, a
 * write on the file opened read-only): the analyst's to fix, so the line says that, without
 * the warehouse's error code, the C API's "Failed to extract statements" or the `LINE 1: ... ^`
 * pointer (several lines). Null for anything else (a locked or unreadable file).
 */
function refusedSql(err: unknown): string | null {
  const cause = isFragsyncError(err) && err.code === 'WAREHOUSE' ? err.cause : undefined;
  if (cause instanceof StatementCountError) return cause.message;
  if (!(cause instanceof Error)) return null;
  const text = cause.message.replace(/^Failed to extract statements: /, '');
  if (!/^[A-Z][A-Za-z ]* Error: /.test(text)) return null;
  const said = (text.split('\n\n')[0] ?? text).replace(/\s*\n\s*/g, ' ');
  const readOnly = /read-only mode/.test(said) ? ' (fragsync query only reads)' : '';
  return `the SQL failed: ${said}${readOnly}`;
}
