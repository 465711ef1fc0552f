import type { ResultColumn, ResultSink } from '../../warehouse/result-stream.ts';
import { NULL_TEXT, cellText } from './cell.ts';
import type { Format } from './format-names.ts';
import { renderTable } from './table.ts';

/**
 * Printers of a streamed result (Warehouse.streamQuery), one per --format. All but the table
 * write rows as they arrive; the table keeps only the rows it will show (the first and the
 * last half of --max-rows, as the DuckDB shell does).
 */

export { FORMATS, type Format } from './format-names.ts';

export interface PrinterOptions {
  write(text: string): void | Promise<void>;
  /** Rows printed at most; null: all. */
  maxRows: number | null;
  /** Terminal columns (the table only). */
  width: number;
  /** Columns the table never cuts, however wide (TableInput.whole); 'all': none is cut. */
  whole?: readonly string[] | 'all';
}

export interface Printer extends ResultSink {
  /** After the last row: the table itself, the closing bracket of JSON. */
  end(): Promise<void>;
  /** Rows printed, of `total` seen. */
  readonly printed: number;
  readonly total: number;
}

export function printer(format: Format, opts: PrinterOptions): Printer {
  switch (format) {
    case 'table':
      return new TablePrinter(opts);
    case 'csv':
      return new LinePrinter(opts, 'text', csvLines);
    case 'markdown':
      return new LinePrinter(opts, 'text', markdownLines);
    case 'json':
      return new LinePrinter(opts, 'json', jsonArrayLines);
    case 'jsonl':
      return new LinePrinter(opts, 'json', jsonLines);
  }
}

/** How one format turns the header and rows into text; `first` is true for the first row. */
interface LineFormat {
  header(columns: readonly ResultColumn[]): string;
  row(row: readonly unknown[], columns: readonly ResultColumn[], first: boolean): string;
  footer(): string;
}

class LinePrinter implements Printer {
  private cols: readonly ResultColumn[] = [];
  printed = 0;
  total = 0;

  constructor(
    private readonly opts: PrinterOptions,
    readonly as: 'text' | 'json',
    private readonly format: LineFormat,
  ) {}

  columns(columns: readonly ResultColumn[]): void {
    this.cols = columns;
  }

  async rows(rows: readonly (readonly unknown[])[]): Promise<void> {
    if (this.total === 0 && this.printed === 0) await this.opts.write(this.format.header(this.cols));
    this.total += rows.length;
    const room = this.opts.maxRows === null ? rows.length : Math.max(0, this.opts.maxRows - this.printed);
    if (room === 0) return;
    let text = '';
    for (const row of rows.slice(0, room)) {
      text += this.format.row(row, this.cols, this.printed === 0);
      this.printed++;
    }
    await this.opts.write(text);
  }

  async end(): Promise<void> {
    if (this.total === 0) await this.opts.write(this.format.header(this.cols));
    await this.opts.write(this.format.footer());
  }
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180, NULL as an empty field, lists and structs as DuckDB prints them. */
const csvLines: LineFormat = {
  header: (cols) => `${cols.map((c) => csvField(c.name)).join(',')}\r\n`,
  row: (row) => `${row.map(csvField).join(',')}\r\n`,
  footer: () => '',
};

function mdCell(value: unknown): string {
  return cellText(value).replace(/\|/g, '\\|');
}

/** A GitHub-flavoured table: numbers right-aligned, NULL as NULL. */
const markdownLines: LineFormat = {
  header: (cols) =>
    `| ${cols.map((c) => mdCell(c.name)).join(' | ')} |\n|${cols.map((c) => (c.numeric ? ' ---: ' : ' --- ')).join('|')}|\n`,
  row: (row) => `| ${row.map((v) => (v === null ? NULL_TEXT : mdCell(v))).join(' | ')} |\n`,
  footer: () => '',
};

function objectOf(row: readonly unknown[], cols: readonly ResultColumn[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  cols.forEach((c, i) => (out[c.name] = row[i] ?? null));
  return out;
}

/** One JSON array of objects (DuckDB's `-json`). */
const jsonArrayLines: LineFormat = {
  header: () => '[',
  row: (row, cols, first) => `${first ? '\n' : ',\n'}${JSON.stringify(objectOf(row, cols))}`,
  footer: () => '\n]\n',
};

/** One JSON object per line (DuckDB's `-jsonlines`). */
const jsonLines: LineFormat = {
  header: () => '',
  row: (row, cols) => `${JSON.stringify(objectOf(row, cols))}\n`,
  footer: () => '',
};

class TablePrinter implements Printer {
  readonly as = 'text' as const;
  private cols: readonly ResultColumn[] = [];
  private readonly head: string[][] = [];
  /** The last rows seen, once there are more than fit (a ring of tailSize). */
  private readonly tail: string[][] = [];
  private tailAt = 0;
  total = 0;

  constructor(private readonly opts: PrinterOptions) {}

  private get headSize(): number {
    return this.opts.maxRows === null ? Infinity : Math.ceil(this.opts.maxRows / 2);
  }

  private get tailSize(): number {
    return this.opts.maxRows === null ? 0 : Math.floor(this.opts.maxRows / 2);
  }

  get printed(): number {
    return Math.min(this.total, this.head.length + this.tail.length);
  }

  columns(columns: readonly ResultColumn[]): void {
    this.cols = columns;
  }

  rows(rows: readonly (readonly unknown[])[]): void {
    for (const row of rows) {
      this.total++;
      const texts = row.map(cellText);
      if (this.head.length < this.headSize) this.head.push(texts);
      else if (this.tailSize > 0) {
        if (this.tail.length < this.tailSize) this.tail.push(texts);
        else {
          this.tail[this.tailAt] = texts;
          this.tailAt = (this.tailAt + 1) % this.tailSize;
        }
      }
    }
  }

  async end(): Promise<void> {
    const tail = [...this.tail.slice(this.tailAt), ...this.tail.slice(0, this.tailAt)];
    const table = renderTable({
      columns: this.cols,
      head: this.head,
      tail,
      total: this.total,
      width: this.opts.width,
      whole: this.opts.whole === 'all' ? this.cols.map((c) => c.name) : this.opts.whole,
    });
    await this.opts.write(`${table}\n`);
  }
}
