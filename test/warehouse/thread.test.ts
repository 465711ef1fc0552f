import { writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { WarehouseError } from '../../src/warehouse/warehouse-error.ts';
import type { LoadEntry } from '../../src/domain/items.ts';
import { ThreadWarehouse } from '../../src/warehouse/thread/remote.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { tempDir } from '../helpers/tmp.ts';
import { profile } from './fixtures.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir('fragsync-thread-');
});
afterEach(() => dir.cleanup());

const entry = (runId: string, id: string): string =>
  JSON.stringify({
    runId,
    items: [profile(id, { score: 3.5 })],
    progress: [{ kind: 'fetched', entity: 'fragrance', key: id, dataset: 'profile' }],
  } satisfies LoadEntry);

function jsonLines(): { lines: Record<string, unknown>[]; logger: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n'))
        if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

test('a warehouse in a worker thread loads a journal segment exactly as one in this thread does', async () => {
  const segment = `${dir.path}/segment.jsonl`;
  await writeFile(segment, `${entry('r1', 'a')}\n${entry('r1', 'b/c')}\n`);
  const { lines: logs, logger } = jsonLines();
  const remote = await ThreadWarehouse.open(`${dir.path}/thread.duckdb`, {
    logger: logger.child({ runId: 'r1' }),
  });
  const local = await Warehouse.open(`${dir.path}/local.duckdb`);
  try {
    for (const wh of [remote, local]) {
      await wh.startRun('r1', new Date('2026-01-01T00:00:00Z'));
      const result = await wh.loadJournal(segment, [
        { kind: 'walk', walk: 'journal:x', page: 0, total: 0, done: true },
      ]);
      expect(result.counts.fragrances).toBe(2);
    }
    const read = (wh: ThreadWarehouse | Warehouse) =>
      wh.query('SELECT id, score, brand_slug FROM fragrances ORDER BY id');
    expect(await read(remote)).toEqual(await read(local));
    expect(await read(remote)).toHaveLength(2);
    // Values that structured clone carries and JSON would not: Maps in the sync state.
    const state = await remote.syncState();
    expect(state.reviewTotals).toBeInstanceOf(Map);
    expect(state.walks.map((w) => w.walk)).toContain('journal:x');
    expect(
      state.items
        .filter((i) => i.fetched.profile)
        .map((i) => i.key)
        .sort(),
    ).toEqual(['a', 'b/c']);
  } finally {
    await remote.close();
    await local.close();
  }
  // The thread's log lines reach the opener's logger, with its bindings.
  const loaded = logs.find((l) => l.msg === 'batch loaded');
  expect(loaded).toMatchObject({ runId: 'r1', items: 2, level: 20 });
});

test('errors cross the thread as one clear WarehouseError; a closed thread refuses further calls', async () => {
  const remote = await ThreadWarehouse.open(`${dir.path}/e.duckdb`);
  const err = await remote.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WarehouseError);
  expect(err).toMatchObject({ code: 'WAREHOUSE' });
  expect((err as Error).message).toMatch(/^query: .*no_such_table/);
  await expect(remote.finishRun('nope', 'failed', new Date())).rejects.toMatchObject({ code: 'WAREHOUSE' });
  await remote.close();
  await expect(remote.query('SELECT 1')).rejects.toThrow(/loader thread stopped/);
});

test('a warehouse the thread cannot open fails the open with the one-line error, and the thread ends', async () => {
  const blocker = `${dir.path}/not-a-dir`;
  await writeFile(blocker, 'a file where a folder should be');
  const err = await ThreadWarehouse.open(`${blocker}/w.duckdb`).catch((e: unknown) => e);
  // The folder is tried before a thread starts; the thread's own open failures cross as the
  // same class (the garbage file below).
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toMatch(/not-a-dir/);
  const garbage = `${dir.path}/garbage.duckdb`;
  await writeFile(garbage, 'not a database, but long enough to be read as a header '.repeat(20));
  const opened = await ThreadWarehouse.open(garbage).catch((e: unknown) => e);
  expect(opened).toBeInstanceOf(ConfigError);
  expect((opened as Error).message).toMatch(/garbage\.duckdb/);
  expect((opened as Error).message).not.toContain('\n');
  expect((err as Error).message).not.toContain('\n');
});
