import { afterEach, beforeEach, expect, test } from 'vitest';
import { Db } from '../../src/warehouse/db.ts';
import { parseMerge, type MergeStatement } from '../../src/warehouse/merge-plan.ts';
import { migrate } from '../../src/warehouse/migrations.ts';
import { sqlFiles } from '../../src/warehouse/sql-files.ts';
import { stageBatch } from '../../src/warehouse/stage-rows.ts';
import { StoredKeys } from '../../src/warehouse/stored-keys.ts';
import { reviewColumns } from '../../src/domain/items.ts';
import { tempDir } from '../helpers/tmp.ts';
import { batch, profile } from './fixtures.ts';

const merges = parseMerge(sqlFiles('merge'));
const statement = (table: string, via: string): MergeStatement =>
  merges.find((m) => m.verb === 'inserts' && m.table === table && m.reads.join() === via)!;
const UPSERTS = [
  statement('fragrances', 'w_fragrance'),
  statement('wearing_stats', 'stg_wearing'),
  statement('review_totals', 'stg_reviews_replace'),
];
const upserting = (keys: StoredKeys, staged: ReturnType<typeof stageBatch>) => {
  const rewrite = keys.rewrite(staged);
  return UPSERTS.filter((st) => /ON CONFLICT/.test(rewrite(st))).map((st) => st.table);
};

const f1 = stageBatch(
  batch([
    profile('f1'),
    {
      kind: 'wearing',
      fragranceId: 'f1',
      seasons: { spring: 1, summer: 0, fall: 0, winter: 0 },
      moods: [],
      occasions: [],
    },
    { kind: 'reviews', fragranceId: 'f1', mode: 'replace', total: 0, ...reviewColumns([]) },
  ]),
);

let db: Db;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const tmp = await tempDir('fragsync-keys-');
  db = await Db.open(`${tmp.path}/w.duckdb`, false);
  await migrate(db);
  cleanup = async () => {
    await db.close().catch(() => undefined);
    await tmp.cleanup();
  };
});
afterEach(() => cleanup());

test('an upsert meeting no stored key runs as a plain INSERT; once the key is stored it upserts', async () => {
  const keys = await db.exclusive((c) => StoredKeys.read(c));
  // Every statement still carries its conflict clause as written (the rewrite has something to drop).
  for (const st of UPSERTS) expect(st.sql).toMatch(/\nON CONFLICT \(/);
  expect(upserting(keys, f1)).toEqual([]);
  for (const st of UPSERTS) expect(keys.rewrite(f1)(st)).toMatch(/^INSERT INTO \w+\s[^;]*;$/);
  keys.record(f1);
  expect(upserting(keys, f1)).toEqual(['fragrances', 'wearing_stats', 'review_totals']);
  // A summary or a prepend also stores the key.
  const other = stageBatch(batch([profile('f2'), profile('f3')]));
  keys.record(stageBatch(batch([{ kind: 'fragranceSummary', id: 'f2', name: 'Two', brand: 'B' }])));
  expect(upserting(keys, other)).toEqual(['fragrances']);
});

test('keys stored before the loader opened are read from the file', async () => {
  await db.run(
    `INSERT INTO fragrances (id) VALUES ('f1'); INSERT INTO wearing_stats (fragrance_id) VALUES ('f1');
     INSERT INTO review_totals (fragrance_id, total, updated_at) VALUES ('f1', 0, now());`,
  );
  const keys = await db.exclusive((c) => StoredKeys.read(c));
  expect(upserting(keys, f1)).toEqual(['fragrances', 'wearing_stats', 'review_totals']);
});

test("a profile's history UPDATE is skipped while no history row can be its, and runs once one can", async () => {
  const keys = await db.exclusive((c) => StoredKeys.read(c));
  const closing = merges.find(
    (m) => m.verb === 'updates' && m.table === 'fragrance_score_history' && m.reads.join() === 'w_fragrance',
  )!;
  const removal = merges.find(
    (m) =>
      m.verb === 'updates' &&
      m.table === 'fragrance_score_history' &&
      m.reads.join() === 'w_removed_fragrance',
  )!;
  expect(keys.skippable(f1)(closing)).toBe(true);
  // Other updates reading w_fragrance (sync_items' change times) are never skipped.
  const changed = merges.find(
    (m) => m.verb === 'updates' && m.table === 'sync_items' && m.reads.join() === 'w_fragrance',
  )!;
  expect(keys.skippable(f1)(changed)).toBe(false);
  expect(keys.skippable(f1)(removal)).toBe(false);
  keys.record(f1);
  expect(keys.skippable(f1)(closing)).toBe(false);
  // Read from the file at open: a history row stored by an earlier process counts.
  await db.run(
    `INSERT INTO fragrance_score_history (fragrance_id, score, valid_from, run_id) VALUES ('f2', 4, now(), 'r')`,
  );
  const reread = await db.exclusive((c) => StoredKeys.read(c));
  expect(reread.skippable(stageBatch(batch([profile('f2')])))(closing)).toBe(false);
  expect(reread.skippable(stageBatch(batch([profile('f3')])))(closing)).toBe(true);
});
