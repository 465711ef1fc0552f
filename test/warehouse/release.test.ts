import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadWarehouse } from '../../src/warehouse/thread/remote.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { lockHolder, lockPath, WriterLock } from '../../src/warehouse/writer-lock.ts';
import { deadHolder } from '../helpers/dead-lock.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A writer that lets go of the DuckDB file between calls (issue 18 item 4), and the writer
 * lock that keeps other writers out meanwhile. Real DuckDB files; the "other process" of the
 * lock is a real process too (one that has ended, for a stale lock).
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

/**
 * DuckDB's lock is a POSIX file lock, which a process never conflicts with itself on: the
 * reader must be another process. It opens the file read-only with DuckDB directly, prints
 * the runs it counts, or LOCKED; with `hold`, it keeps the file open until its stdin closes.
 * The handler that closes it is what keeps the instance alive meanwhile: once the script has
 * run, nothing else refers to it, and a garbage collection (V8 runs one when a process goes
 * idle) closed the file and let the writer in while the reader was said to hold it.
 */
const READER = `
const { DuckDBInstance } = await import('@duckdb/node-api');
let inst;
try { inst = await DuckDBInstance.create(process.argv[1], { access_mode: 'READ_ONLY' }); }
catch (e) { console.log(/lock/i.test(String(e)) ? 'LOCKED' : 'ERROR ' + e); process.exit(0); }
const c = await inst.connect();
const r = await c.runAndReadAll('SELECT count(*)::INTEGER AS n FROM sync_runs');
console.log(String(r.getRows()[0][0]));
if (process.argv[2] === 'hold') {
  process.stdin.resume();
  process.stdin.on('end', () => { c.closeSync(); inst.closeSync(); process.exit(0); });
}
`;
const NODE_ARGS = ['--input-type=module', '-e', READER];

function readerCount(path: string): number | 'LOCKED' {
  const out = spawnSync(process.execPath, [...NODE_ARGS, path], { encoding: 'utf8' }).stdout.trim();
  if (out !== 'LOCKED' && !/^\d+$/.test(out)) throw new Error(`reader: ${out}`);
  return out === 'LOCKED' ? out : Number(out);
}

/** A reader process holding the file open until `close()`. */
async function holdingReader(path: string): Promise<{ close(): Promise<void> }> {
  const child = spawn(process.execPath, [...NODE_ARGS, path, 'hold'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  if (!/^\d+$/.test(first)) throw new Error(`reader: ${first}`);
  return {
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

describe('a released warehouse', () => {
  it.each([
    ['in this thread', (p: string) => Warehouse.open(p)],
    ['in the loader thread', (p: string) => ThreadWarehouse.open(p)],
  ])('%s: admits readers once released, and opens again for the next write', async (_name, open) => {
    const path = join(dir.path, `rel-${_name.replaceAll(' ', '-')}.duckdb`);
    const wh = await open(path);
    try {
      await wh.startRun('r1', new Date());
      // Held: another process cannot open it, not even read-only.
      expect(readerCount(path)).toBe('LOCKED');
      await wh.release();
      expect(readerCount(path)).toBe(1);
      // The next call opens it again, with the loader ready.
      await wh.startRun('r2', new Date());
      await wh.load({
        runId: 'r2',
        items: [],
        progress: [{ kind: 'walk', walk: 'w', page: 1, total: 1, done: true }],
      });
      expect(readerCount(path)).toBe('LOCKED');
      await wh.release();
      expect(readerCount(path)).toBe(2);
    } finally {
      await wh.close();
    }
  });

  it('lets go by itself after releaseIdleMs without a call', async () => {
    const path = join(dir.path, 'idle.duckdb');
    const wh = await Warehouse.open(path, { releaseIdleMs: 200 });
    try {
      await wh.startRun('r1', new Date());
      const deadline = Date.now() + 30_000;
      let n = readerCount(path);
      while (n === 'LOCKED' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        n = readerCount(path);
      }
      expect(n).toBe(1);
      await wh.startRun('r2', new Date());
      expect((await wh.query<{ n: number }>('SELECT count(*) AS n FROM sync_runs'))[0]!.n).toBe(2);
    } finally {
      await wh.close();
    }
  });

  it('a writer that finds a reader in the file waits for it, then writes', async () => {
    const path = join(dir.path, 'wait.duckdb');
    const wh = await Warehouse.open(path);
    await wh.startRun('r1', new Date());
    await wh.release();
    const reader = await holdingReader(path);
    let written = false;
    const write = wh.startRun('r2', new Date()).then(() => (written = true));
    // Not a timing assertion: the write cannot have happened while the reader holds the file.
    await new Promise((r) => setTimeout(r, 500));
    expect(written).toBe(false);
    await reader.close();
    await write;
    await wh.release();
    expect(readerCount(path)).toBe(2);
    await wh.close();
  });
});

describe('the writer lock', () => {
  it('refuses a second writer naming the run, and is gone once released', () => {
    const path = join(dir.path, 'lock.duckdb');
    const lock = WriterLock.acquire(path, 'run-a');
    try {
      lock.paused(new Date('2030-01-01T00:00:00Z'));
      expect(lockHolder(path)).toMatchObject({
        runId: 'run-a',
        state: 'paused',
        pausedUntil: '2030-01-01T00:00:00.000Z',
      });
      expect(() => WriterLock.acquire(path, 'run-b')).toThrow(
        /lock\.duckdb is in use by another process: sync run run-a \(pid \d+/,
      );
    } finally {
      lock.release();
    }
    expect(existsSync(lockPath(path))).toBe(false);
    WriterLock.acquire(path, 'run-b').release();
  });

  it('takes over the lock of a process that is gone, never that of another host', () => {
    const path = join(dir.path, 'stale.duckdb');
    const stale = deadHolder('run-dead');
    writeFileSync(lockPath(path), JSON.stringify(stale));
    const lock = WriterLock.acquire(path, 'run-new');
    expect(JSON.parse(readFileSync(lockPath(path), 'utf8'))).toMatchObject({
      runId: 'run-new',
      pid: process.pid,
    });
    lock.release();
    writeFileSync(lockPath(path), JSON.stringify({ ...stale, host: 'another-host' }));
    expect(() => WriterLock.acquire(path, 'run-new')).toThrow(/sync run run-dead \(pid \d+ on another-host/);
  });

  it('keeps other writers of the warehouse out while it stands', async () => {
    const path = join(dir.path, 'others.duckdb');
    writeFileSync(
      lockPath(path),
      JSON.stringify({
        pid: process.ppid,
        host: hostname(),
        runId: 'run-other',
        startedAt: '',
        state: 'paused',
        pausedUntil: null,
      }),
    );
    await expect(Warehouse.open(path)).rejects.toMatchObject({ code: 'WAREHOUSE_LOCKED' });
  });
});
