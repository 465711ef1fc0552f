import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { toWarehouseError } from './warehouse-error.ts';
import type { LoadBatch, LoadEntry, ProgressMark } from '../domain/items.ts';

/**
 * The write-ahead journal in front of the loader, beside the warehouse file. Every job
 * result is appended here (one JSON line, in the page cache before the next request is
 * sent); a process killed between a paid response and the warehouse commit therefore loses
 * nothing: the next start replays the journal.
 *
 * The journal is also how results reach the loader: a flush seals the open segment and the
 * loader reads the sealed file itself (readJournal). The fetching thread keeps no copy of a
 * result once it is written, so nothing it fetched lives long enough to be promoted in its
 * heap, and nothing is copied between threads. The open segment's file stays open: one
 * write(2) per entry.
 *
 * A sealed segment is loaded in one transaction that also records the segment's id as a
 * sync_walks row (`journal:<id>`), and only then deleted. A crash between commit and delete
 * is harmless: replay skips segments the warehouse already recorded.
 */

export class Journal {
  private segmentId = randomUUID();
  private lines = 0;
  /** Length of the open segment's file: where a failed append cuts it back to. */
  private bytes = 0;
  private fd: number | null = null;
  /** The open segment's path, once it was appended to. */
  private openPath: string | null = null;

  constructor(private readonly dbPath: string) {}

  private get prefix(): string {
    return `${basename(this.dbPath)}.journal-`;
  }

  private segmentPath(id: string): string {
    return join(dirname(this.dbPath), `${this.prefix}${id}.jsonl`);
  }

  /**
   * Append serialized entries (LoadEntry lines as JSON, without newlines), all with one
   * write(2). When the disk has no room, throws the warehouse's one-line DISK_FULL error
   * naming the segment, and leaves no part of them behind: a later append (once there is
   * room) starts on a line of its own.
   */
  append(lines: string | readonly string[]): void {
    // Made once per segment: an append per request made it (basename, dirname, join) each time.
    const path = (this.openPath ??= this.segmentPath(this.segmentId));
    // The string handed to fs as it is: measured on 6 KB lines, the flat copy V8 makes of
    // `line + '\n'` costs less than encoding into a Buffer first (Buffer.from + writev took
    // 40% more CPU), and no Buffer per line is left for the garbage collector.
    // Joined with an empty last element for the final newline: `joined + '\n'` would be a
    // cons string that V8 copies flat again before measuring and writing it.
    const many = typeof lines !== 'string';
    const text = many ? [...lines, ''].join('\n') : `${lines}\n`;
    const size = Buffer.byteLength(text);
    try {
      this.fd ??= openSync(path, 'a');
      const written = writeSync(this.fd, text);
      if (written < size) {
        // A write that fills the disk (or reaches the file-size limit) is cut short without
        // an error; writing the rest is what reports why (ENOSPC, EFBIG).
        const rest = Buffer.from(text).subarray(written);
        for (let done = 0; done < rest.length;) done += writeSync(this.fd, rest, done);
      }
    } catch (err) {
      try {
        if (this.fd !== null) ftruncateSync(this.fd, this.bytes);
      } catch {
        // The cut line stays; replay drops or quarantines it (readJournal).
      }
      throw toWarehouseError(err, 'journal', path);
    }
    this.bytes += size;
    this.lines += many ? lines.length : 1;
  }

  /** Close the open file (the segment stays for the next start to replay, or for seal). */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /**
   * Close the open segment for a flush; later appends go to a new one. Returns its id and
   * the sealed file's path, or null if it is empty.
   */
  seal(): { id: string; path: string } | null {
    if (this.lines === 0) return null;
    const id = this.segmentId;
    this.close();
    const path = this.segmentPath(`${id}.sealed`);
    renameSync(this.segmentPath(id), path);
    this.segmentId = randomUUID();
    this.openPath = null;
    this.lines = 0;
    this.bytes = 0;
    return { id, path };
  }

  /** Delete a sealed segment once its transaction committed. */
  discard(id: string): void {
    rmSync(this.segmentPath(`${id}.sealed`), { force: true });
  }

  /** Segments left by a process that died (open or sealed): id and path. */
  leftovers(): { id: string; path: string }[] {
    const dir = dirname(this.dbPath);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.startsWith(this.prefix) && d.name.endsWith('.jsonl'))
      .map((d) => ({
        id: d.name
          .slice(this.prefix.length)
          .replace(/\.jsonl$/, '')
          .replace(/\.sealed$/, ''),
        path: join(dir, d.name),
      }));
  }

  removeLeftover(id: string): void {
    rmSync(this.segmentPath(id), { force: true });
    rmSync(this.segmentPath(`${id}.sealed`), { force: true });
  }
}

export function journalMark(id: string): ProgressMark {
  return { kind: 'walk', walk: `journal:${id}`, page: 0, total: 0, done: true };
}

/**
 * The batches a journal segment holds, one per run (a segment normally holds one run's
 * entries). The last line of a segment written by a process that was killed may be cut
 * short: it is dropped (its result was never complete). Any other line that does not parse
 * is kept in quarantine with its text rather than dropped in silence.
 */
export function readJournal(path: string): LoadBatch[] {
  // Each line decoded on its own, not the file as one string: one character beyond ASCII (a
  // review's text; about one line in eight) made the whole segment a two-byte string, so every
  // line went through V8's slower two-byte JSON parser (the strings parsed out of it were
  // one-byte either way). Per line, the ASCII lines stay one-byte: reading and parsing a sync's
  // segments took about a quarter less CPU (docs/benchmarks.md, session 11).
  const bytes = readFileSync(path);
  const byRun = new Map<string, LoadBatch>();
  let last: LoadBatch | null = null;
  const bad: string[] = [];
  const batchOf = (runId: string): LoadBatch => {
    let batch = byRun.get(runId);
    if (!batch) byRun.set(runId, (batch = { runId, items: [], progress: [] }));
    return batch;
  };
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline < 0 ? bytes.length : newline;
    const line = bytes.toString('utf8', start, end);
    start = end + 1;
    if (line.length === 0) continue;
    // A request's line, about half of all lines: nothing in it is loaded (recovery reads it,
    // sent-calls.ts), so it is not parsed, only its run noted.
    const runId = sentOnlyRun(line);
    if (runId !== null) {
      last = batchOf(runId);
      continue;
    }
    let entry: LoadEntry;
    try {
      entry = JSON.parse(line) as LoadEntry;
    } catch {
      if (newline >= 0) bad.push(line); // a line without its newline was cut by a crash
      continue;
    }
    const batch = batchOf(entry.runId);
    for (const item of entry.items) batch.items.push(item);
    for (const mark of entry.progress) batch.progress.push(mark);
    last = batch;
  }
  const batches = [...byRun.values()];
  if (bad.length > 0 && last) {
    const into: LoadBatch = last;
    for (const raw of bad)
      into.items.push({
        kind: 'quarantine',
        endpoint: 'journal',
        key: basename(path),
        reason: 'journal line is not valid JSON',
        raw,
      });
  }
  return batches;
}

const NEWLINE = 0x0a;
const RUN_OPEN = '{"runId":"';
const SENT_ONLY = '","items":[],"progress":[],"sent":[';

/**
 * The run id of a line that only records requests sent (LoadStage's request lines, written as
 * `{"runId":…,"items":[],"progress":[],"sent":[…]}`), or null for any other line. A run id
 * with an escaped quote, or a line cut short, is not recognised here and is parsed instead.
 */
export function sentOnlyRun(line: string): string | null {
  if (!line.startsWith(RUN_OPEN) || !line.endsWith(']}')) return null;
  const end = line.indexOf('"', RUN_OPEN.length);
  if (end < 0 || !line.startsWith(SENT_ONLY, end)) return null;
  const runId = line.slice(RUN_OPEN.length, end);
  return runId.includes('\\') ? null : runId;
}
