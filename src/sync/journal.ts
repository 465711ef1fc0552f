import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { LoadEntry, ProgressMark } from '../warehouse/rows.ts';

/**
 * A write-ahead journal beside the warehouse file. Every job result is appended here (one
 * JSON line, in the page cache before the next request is sent) before it waits in memory
 * for the next batched transaction. A process killed between a paid response and the
 * warehouse commit therefore loses nothing: the next start replays the journal.
 *
 * The open segment's file stays open: one write(2) per entry, no open/close per entry (the
 * cost that showed in profiles). Entries arrive already serialized, because the same line
 * is what travels to the loader thread (see LoadStage): one JSON encoding per result.
 *
 * The journal rotates into segments: the open segment takes appends; a flush seals it,
 * loads its lines in one transaction that also records the segment's id as a sync_walks
 * row (`journal:<id>`), and only then deletes it. A crash between commit and delete is
 * harmless: replay skips segments the warehouse already recorded.
 */
export class Journal {
  private segmentId = randomUUID();
  private lines = 0;
  private fd: number | null = null;

  constructor(private readonly dbPath: string) {}

  private get prefix(): string {
    return `${basename(this.dbPath)}.journal-`;
  }

  private segmentPath(id: string): string {
    return join(dirname(this.dbPath), `${this.prefix}${id}.jsonl`);
  }

  /** Append one serialized entry (a LoadEntry as JSON, without the newline). */
  append(line: string): void {
    this.fd ??= openSync(this.segmentPath(this.segmentId), 'a');
    writeSync(this.fd, line + '\n');
    this.lines++;
  }

  /** Close the open file (the segment stays for the next start to replay, or for seal). */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Close the open segment for a flush; later appends go to a new one. Returns its id, or null if empty. */
  seal(): string | null {
    if (this.lines === 0) return null;
    const id = this.segmentId;
    this.close();
    renameSync(this.segmentPath(id), this.segmentPath(`${id}.sealed`));
    this.segmentId = randomUUID();
    this.lines = 0;
    return id;
  }

  /** Delete a sealed segment once its transaction committed. */
  discard(id: string): void {
    rmSync(this.segmentPath(`${id}.sealed`), { force: true });
  }

  /** Segments left by a process that died, oldest first: id and entries. */
  leftovers(): { id: string; entries: LoadEntry[] }[] {
    const dir = dirname(this.dbPath);
    if (!existsSync(dir)) return [];
    const found = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.startsWith(this.prefix) && d.name.endsWith('.jsonl'))
      .map((d) => join(dir, d.name));
    return found.map((path) => {
      const id = basename(path)
        .slice(this.prefix.length)
        .replace(/\.jsonl$/, '')
        .replace(/\.sealed$/, '');
      // A line cut by a crash mid-write is the only partial one: the last.
      const entries = readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as LoadEntry];
          } catch {
            return [];
          }
        });
      return { id, entries, path };
    });
  }

  removeLeftover(id: string): void {
    rmSync(this.segmentPath(id), { force: true });
    rmSync(this.segmentPath(`${id}.sealed`), { force: true });
  }
}

export function journalMark(id: string): ProgressMark {
  return { kind: 'walk', walk: `journal:${id}`, page: 0, total: 0, done: true };
}
