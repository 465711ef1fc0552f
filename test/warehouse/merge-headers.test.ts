import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LoadBatch, LoadItem } from '../../src/domain/items.ts';
import { appendRows, Db, rows } from '../../src/warehouse/db.ts';
import {
  LOAD_TIME_COLUMN,
  loadCountsSql,
  parseMerge,
  type MergeVerb,
} from '../../src/warehouse/merge-plan.ts';
import { migrate } from '../../src/warehouse/migrations.ts';
import { sqlFile, sqlFiles } from '../../src/warehouse/sql-files.ts';
import { stageBatch } from '../../src/warehouse/stage-rows.ts';
import { STAGING_TABLES, columnTypes, stagingDdl } from '../../src/warehouse/staging.ts';
import { answeredCall, batch, profile } from './fixtures.ts';

/**
 * Every statement of sql/merge declares, in its `-- merge:` header, what it writes and which
 * batch tables it reads (src/warehouse/merge-plan.ts plans batches from the headers alone).
 * These tests hold each header to its statement, asking DuckDB rather than reading the SQL:
 * what the binder resolves, what kind of statement the planner sees, what a run changes.
 */
const merges = parseMerge(sqlFiles('merge'));
const workTables = new Set(merges.filter((m) => m.verb === 'creates').map((m) => m.table));
const batchTables = new Set<string>([...STAGING_TABLES, ...workTables]);

/** The root operator of each verb's plan (an upsert is planned as MERGE_INTO). */
const ROOT: Record<MergeVerb, string[]> = {
  creates: ['CREATE_TABLE_AS'],
  inserts: ['INSERT', 'MERGE_INTO'],
  updates: ['UPDATE'],
  deletes: ['DELETE'],
};

interface PlanNode {
  name: string;
  children: PlanNode[];
  extra_info?: { Table?: string };
}

/** Tables a plan scans, by their bare names (`"temp".main.stg_x` is stg_x). */
function scanned(node: PlanNode, into = new Set<string>()): Set<string> {
  const table = node.extra_info?.Table;
  if (typeof table === 'string') into.add(table.split('.').pop()!.replaceAll('"', ''));
  for (const child of node.children) scanned(child, into);
  return into;
}

async function planOf(c: DuckDBConnection, sql: string): Promise<PlanNode> {
  const [row] = await rows<{ explain_value: string }>(c, `EXPLAIN (FORMAT JSON) ${sql}`);
  return (JSON.parse(row!.explain_value) as PlanNode[])[0]!;
}

/** A digest of every warehouse table (rows as text, order-free, duplicates counted). */
async function digests(c: DuckDBConnection): Promise<Map<string, string>> {
  const tables = await rows<{ t: string }>(
    c,
    'SELECT table_name AS t FROM duckdb_tables() WHERE NOT temporary ORDER BY 1',
  );
  const sql = tables
    .map(
      ({ t }) =>
        `SELECT '${t}' AS t, count(*)::VARCHAR || ':' || coalesce(sum(hash(x::VARCHAR)::HUGEINT), 0)::VARCHAR AS d FROM ${t} x`,
    )
    .join(' UNION ALL ');
  return new Map((await rows<{ t: string; d: string }>(c, sql)).map((r) => [r.t, r.d]));
}

async function stage(c: DuckDBConnection, b: LoadBatch, at: string): Promise<void> {
  await c.run(stagingDdl(STAGING_TABLES));
  const staged = stageBatch(b);
  for (const t of STAGING_TABLES) await appendRows(c, t, columnTypes(t), staged[t]);
  await c.run(
    `SET VARIABLE fragsync_batch_run = '${b.runId}'; SET VARIABLE fragsync_batch_at = '${at}'::TIMESTAMPTZ;`,
  );
}

/**
 * Runs every statement in order; each may change only the table its header names. Before
 * it runs for real, it runs once more in a transaction rolled back, with the tables its
 * header says drive it (`reads`) emptied: then it must change nothing (a work table it
 * creates stays empty), whatever the tables it only looks up hold.
 */
async function runChecked(c: DuckDBConnection): Promise<Set<string>> {
  const changed = new Set<string>();
  let before = await digests(c);
  for (const st of merges) {
    await c.run(`BEGIN TRANSACTION; ${st.reads.map((t) => `DELETE FROM ${t};`).join(' ')}`);
    try {
      await c.run(st.sql);
      expect(await digests(c), `${st.at} with ${st.reads.join(', ')} empty`).toEqual(before);
      if (st.verb === 'creates') {
        const [created] = await rows<{ n: bigint }>(c, `SELECT count(*) AS n FROM ${st.table}`);
        expect(Number(created!.n), `${st.at} with ${st.reads.join(', ')} empty`).toBe(0);
      }
    } finally {
      await c.run('ROLLBACK');
    }
    await c.run(st.sql);
    const after = await digests(c);
    for (const [t, d] of after) {
      if (before.get(t) === d) continue;
      expect(st.verb === 'creates' ? null : t, `${st.at} changed ${t}`).toBe(st.table);
      changed.add(t);
    }
    before = after;
  }
  return changed;
}

/** Every kind of item and mark, so that every merge statement has rows to work on (repeats and ties for the overflow tables). */
const first: LoadItem[] = [
  profile('f1'),
  profile('f2', { brandSlug: 'b1' }),
  { kind: 'fragranceSummary', id: 'f3', name: 'Three', brand: 'B' },
  { kind: 'similar', fragranceId: 'f1', ids: ['f2', 'f3', 'f2'], scores: [0.9, 0.5, 0.4] },
  {
    kind: 'wearing',
    fragranceId: 'f1',
    seasons: { spring: 1, summer: 2, fall: 3, winter: 4 },
    moods: [
      { label: 'calm', score: 0.5 },
      { label: 'calm', score: 0.3 },
    ],
    occasions: [{ label: 'office', score: 0.7 }],
  },
  {
    kind: 'reviews',
    fragranceId: 'f1',
    mode: 'replace',
    total: 2,
    dates: ['2024-05-02', '2024-05-01'],
    ratings: [4, 5],
    texts: ['fine', null],
  },
  { kind: 'brand', slug: 'b1', name: 'B', country: 'FR', description: 'd' },
  { kind: 'brandCatalogue', brandSlug: 'b1', fragrances: [{ id: 'f2', name: 'Name f2' }] },
  { kind: 'perfumer', slug: 'p1', name: 'P', nationality: 'FR', bio: 'b' },
  { kind: 'note', slug: 'n1', name: 'Rose', family: 'floral', description: 'a rose' },
  { kind: 'accord', slug: 'a1', name: 'citrus' },
  { kind: 'chart', slug: 'c1', title: 'Top' },
  {
    kind: 'chartSnapshot',
    chartSlug: 'c1',
    title: 'Top',
    snapshotDate: '2024-06-01',
    entries: [
      { rank: 1, id: 'f1', name: 'Name f1', brand: 'Maison X', score: 4.1 },
      { rank: 1, id: 'f2', name: 'Name f2', brand: 'Maison X', score: 4.1 },
    ],
  },
  { kind: 'reviewDigest', fragranceId: 'f1', raw: { summary: 'ok' } },
  { kind: 'quarantine', endpoint: '/v1/x', key: 'k', reason: 'bad', raw: { a: 1 } },
  answeredCall('c-1', 200),
];

/** Changes to all of that: a new score, newer reviews, removals, shorter lists. */
const second: LoadItem[] = [
  profile('f1', { score: 4.6 }),
  { kind: 'fragranceSummary', id: 'f3', name: 'Three again', brand: 'B' },
  { kind: 'similar', fragranceId: 'f1', ids: ['f3'], scores: [0.4] },
  {
    kind: 'reviews',
    fragranceId: 'f1',
    mode: 'prepend',
    total: 3,
    dates: ['2024-05-03'],
    ratings: [3],
    texts: ['new'],
  },
  { kind: 'brandCatalogue', brandSlug: 'b1', fragrances: [] },
  { kind: 'note', slug: 'n1', name: 'Rose', family: 'floral' },
  { kind: 'removal', entity: 'fragrance', keys: ['f2'] },
  { kind: 'removal', entity: 'accord', keys: ['a1'] },
  answeredCall('c-2', 500),
];

let db: Db;

beforeAll(async () => {
  db = await Db.open(':memory:', false);
  await migrate(db);
  await db.run(stagingDdl(STAGING_TABLES));
  await db.run(sqlFile('session.sql'));
});

afterAll(async () => {
  await db.close();
});

describe('merge headers', () => {
  test('every header is followed by exactly one statement, of the kind it names', async () => {
    expect(merges.length).toBeGreaterThan(40);
    await db.exclusive(async (c) => {
      for (const st of merges) {
        expect((await c.extractStatements(st.sql)).count, st.at).toBe(1);
        expect(ROOT[st.verb], st.at).toContain((await planOf(c, st.sql)).name);
        if (st.verb === 'creates') await c.run(st.sql); // the statements after it read it
      }
    });
  });

  test('the batch tables a header names are exactly the ones its statement reads', async () => {
    await db.exclusive(async (c) => {
      // Unoptimized plans: every table the binder resolved is still scanned in them.
      await c.run('PRAGMA disable_optimizer');
      try {
        for (const st of merges) {
          const read = [...scanned(await planOf(c, st.sql))].filter(
            (t) => batchTables.has(t) && t !== (st.verb === 'creates' ? st.table : null),
          );
          expect(read.sort(), st.at).toEqual([...st.reads, ...st.looksUp].sort());
          expect(
            st.reads.length,
            `${st.at}: a statement is driven by at least one batch table`,
          ).toBeGreaterThan(0);
          if (st.verb === 'creates') await c.run(st.sql);
        }
      } finally {
        await c.run('PRAGMA enable_optimizer');
      }
    });
  });

  test('every statement changes only the table its header names, and nothing without its drivers', async () => {
    await db.exclusive(async (c) => {
      await stage(c, batch(first, [], 'run-1'), '2024-06-01T10:00:00Z');
      const one = await runChecked(c);
      await stage(
        c,
        batch(
          second,
          [
            { kind: 'fetched', entity: 'fragrance', key: 'f1', dataset: 'profile' },
            { kind: 'walk', walk: 'fragrances', page: 1, total: 3, done: false },
            { kind: 'discovered', entity: 'fragrance', key: 'f9', source: 'similar' },
          ],
          'run-2',
        ),
        '2024-06-02T10:00:00Z',
      );
      const two = await runChecked(c);
      // The check had something to check: between them, the batches changed nearly every table.
      const declared = new Set(merges.filter((m) => m.verb !== 'creates').map((m) => m.table));
      const changed = new Set([...one, ...two]);
      expect([...declared].filter((t) => !changed.has(t))).toEqual([]);
    });
    // Every merge statement twice, each also rolled back once: about 50 s at load 29.
  }, 180_000);

  test('the load counts name a time column of every table they count, and count what a batch wrote', async () => {
    await db.exclusive(async (c) => {
      const tables = Object.keys(LOAD_TIME_COLUMN);
      const counted = await rows<{ t: string; n: bigint }>(
        c,
        loadCountsSql(tables, new Date('2024-06-02T10:00:00Z')),
      );
      expect(counted.map((r) => r.t)).toEqual(tables);
      // The second batch above wrote its profile, its similar list and a ledger row at that time.
      const n = new Map(counted.map((r) => [r.t, Number(r.n)]));
      expect([n.get('fragrances'), n.get('similar_fragrances'), n.get('api_calls')]).toEqual([2, 1, 1]);
    });
  });
});
