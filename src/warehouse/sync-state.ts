import type { Db } from './db.ts';
import { sqlFile } from './sql-files.ts';
import type { ClockMark, ItemState, SyncState, WalkState } from './state-types.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';

const ISO = (col: string): string => `strftime(timezone('UTC', ${col}), '%Y-%m-%dT%H:%M:%S.%gZ')`;

const DATASET_COLUMNS: [Dataset, string][] = [
  ['profile', 'fetched_profile'],
  ['similar', 'fetched_similar'],
  ['wearing', 'fetched_wearing'],
  ['reviews', 'fetched_reviews'],
  ['reviewDigest', 'fetched_review_digest'],
  ['catalogue', 'fetched_catalogue'],
];

type ItemRow = Record<string, string | boolean | null>;

/** Reads what the planner needs to continue a cycle; timestamps are ISO strings (UTC). */
export async function readSyncState(db: Db): Promise<SyncState> {
  const [cycle] = await db.all<{ last_completed_run: string | null; cycle_start: string | null }>(
    sqlFile('sync-state.sql'),
  );
  const itemRows = await db.all<ItemRow>(
    `SELECT entity, key, ${ISO('first_seen')} AS first_seen, ${ISO('last_changed')} AS last_changed, removed,
      ${DATASET_COLUMNS.map(([, col]) => `${ISO(col)} AS ${col}`).join(', ')}
     FROM sync_items ORDER BY entity, key`,
  );
  const items: ItemState[] = itemRows.map((r) => {
    const fetched: Partial<Record<Dataset, string>> = {};
    for (const [dataset, col] of DATASET_COLUMNS) {
      const v = r[col];
      if (typeof v === 'string') fetched[dataset] = v;
    }
    return {
      entity: r.entity as EntityKind,
      key: r.key as string,
      firstSeen: r.first_seen as string,
      fetched,
      lastChanged: (r.last_changed as string | null) ?? null,
      removed: r.removed === true,
    };
  });
  const walks = (
    await db.all<WalkState & { keptPages: string | null }>(
      `SELECT walk, page, total, done, ${ISO('"at"')} AS "at", page_size AS "pageSize",
         CASE WHEN NOT done THEN kept_pages END AS "keptPages" FROM sync_walks ORDER BY walk`,
    )
  ).map(({ keptPages, ...w }) =>
    keptPages === null ? w : { ...w, kept: JSON.parse(keptPages) as WalkState['kept'] },
  );
  const pairs = (sql: string) =>
    db.all<{ k: string; n: number }>(sql).then((rs) => new Map(rs.map((r) => [r.k, Number(r.n)])));
  return {
    cycleStart: cycle?.cycle_start ?? null,
    lastCompletedRun: cycle?.last_completed_run ?? null,
    items,
    walks,
    reviewTotals: await pairs('SELECT fragrance_id AS k, total AS n FROM review_totals'),
    similarCounts: await pairs(
      'SELECT fragrance_id AS k, count(*)::INTEGER AS n FROM similar_fragrances GROUP BY fragrance_id',
    ),
    brandCatalogueSizes: await pairs(
      'SELECT brand_slug AS k, count(*)::INTEGER AS n FROM brand_fragrances GROUP BY brand_slug',
    ),
    charted: new Set((await db.all<{ id: string }>(sqlFile('charted.sql'))).map((r) => r.id)),
    members: await pairs(sqlFile('members.sql')),
    clocks: await readClocks((sql) => db.all(sql)),
  };
}

/** The offset each run recorded, oldest run first (`status` takes the last; the sync all). */
export async function readClocks(all: (sql: string) => Promise<unknown[]>): Promise<ClockMark[]> {
  return ((await all(sqlFile('runs/clocks.sql'))) as ClockMark[]).map((r) => ({
    ...r,
    offsetMs: Number(r.offsetMs),
  }));
}
