import type { Db } from './db.ts';
import { OPEN, STORED_BY } from './quarantine.ts';
import { CYCLE_END, withCycle } from './run-sql.ts';
import { sqlFile } from './sql-files.ts';
import {
  FETCHED_COLUMN,
  type ClockMark,
  type ItemState,
  type QuarantineOwed,
  type SyncState,
  type WalkState,
} from './state-types.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';

const ISO = (col: string): string => `strftime(timezone('UTC', ${col}), '%Y-%m-%dT%H:%M:%S.%gZ')`;

const DATASET_COLUMNS = Object.entries(FETCHED_COLUMN) as [Dataset, string][];

type ItemRow = Record<string, string | boolean | null>;

/** Reads what the planner needs to continue a cycle; timestamps are ISO strings (UTC). */
export async function readSyncState(db: Db): Promise<SyncState> {
  const [cycle] = await db.all<{ last_completed_run: string | null; cycle_start: string | null }>(
    withCycle(CYCLE_END.OPEN, sqlFile('sync-state.sql'), false),
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
  // The nightly (a full sync completed, no cycle open) asks again for what it holds in
  // quarantine: the mirror still lacks it, and one call a record is cheap beside a record
  // missing until its dataset's age comes round (a week, a month).
  const quarantineOwed =
    cycle?.last_completed_run && !cycle.cycle_start ? await oweQuarantined(db, items) : [];
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
    quarantineOwed,
  };
}

/** The offset each run recorded, oldest run first (`status` takes the last; the sync all). */
export async function readClocks(all: (sql: string) => Promise<unknown[]>): Promise<ClockMark[]> {
  return ((await all(sqlFile('runs/clocks.sql'))) as ClockMark[]).map((r) => ({
    ...r,
    offsetMs: Number(r.offsetMs),
  }));
}

/**
 * Forgets the fetch of each dataset whose answer is still open in quarantine, so that the
 * nightly owes it. Only a row as recent as the fetch: a dataset fetched after its row was
 * quarantined (stored since) is not asked for again; a job that failed or a page of a walk is
 * owed by its own state already. Returns what it made owed, for `fragsync plan` to name.
 */
async function oweQuarantined(db: Db, items: ItemState[]): Promise<QuarantineOwed[]> {
  const open = await db.all<{ endpoint: string; key: string; at_ms: bigint | number }>(
    `SELECT endpoint, key, epoch_ms(max("at")) AS at_ms FROM quarantine
     WHERE ${OPEN} AND coalesce(scope, 'response') = 'response' AND key <> ''
     GROUP BY 1, 2`,
  );
  const owed: QuarantineOwed[] = [];
  if (open.length === 0) return owed;
  const byKey = new Map(items.map((i) => [`${i.entity}|${i.key}`, i]));
  for (const row of open) {
    const stored = STORED_BY[row.endpoint];
    if (!stored) continue;
    const item = byKey.get(`${stored.entity}|${row.key}`);
    const at = item?.fetched[stored.dataset];
    if (item && at !== undefined && Date.parse(at) <= Number(row.at_ms)) {
      delete item.fetched[stored.dataset];
      // The list is plan's to price (owed.ts), which prices live items only.
      if (!item.removed)
        owed.push({ entity: stored.entity, dataset: stored.dataset, key: row.key, endpoint: row.endpoint });
    }
  }
  return owed;
}
