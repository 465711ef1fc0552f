import type { GroundTruth } from '../../src/simulator/types.ts';
import { diffTables, truthTables, warehouseTables, type Tables } from './ground-truth.ts';

/**
 * The checks of a nightly after a simulated day (issue 15), shared by test/e2e/nightly.test.ts
 * and `npm run bench:nightly`: what the day changed (from the simulator's truth before and
 * after), whether every new fragrance is complete in the warehouse, and whether every
 * discontinued one is gone from every table that named it.
 */
export interface DayDiff {
  added: string[];
  removed: string[];
  /** Slugs of brands, perfumers and notes that did not exist the day before (a new house). */
  newBrands: string[];
  newPerfumers: string[];
  newNotes: string[];
}

export function dayDiff(before: GroundTruth, after: GroundTruth): DayDiff {
  const ids = (t: GroundTruth) => new Set(t.fragrances.map((f) => f.id));
  const had = ids(before);
  const has = ids(after);
  const fresh = <T extends { slug: string }>(old: T[], now: T[]) => {
    const known = new Set(old.map((x) => x.slug));
    return now.filter((x) => !known.has(x.slug)).map((x) => x.slug);
  };
  return {
    added: [...has].filter((id) => !had.has(id)),
    removed: [...had].filter((id) => !has.has(id)),
    newBrands: fresh(before.brands, after.brands),
    newPerfumers: fresh(before.perfumers, after.perfumers),
    newNotes: fresh(before.notes, after.notes),
  };
}

/** Per table, the columns (in truthRows' order) that hold the fragrance a row is about. */
const OWNED_BY: Record<string, number> = {
  fragrances: 0,
  fragrance_notes: 0,
  fragrance_accords: 0,
  reviews: 0,
  similar_fragrances: 0,
  similar_fragrances_overflow: 0,
  wearing_stats: 0,
  wearing_moods: 0,
  wearing_occasions: 0,
  wearing_labels_overflow: 0,
  brand_fragrances: 1,
};

/** Every column that names a fragrance: a discontinued one must be in none of them. */
const NAMES_FRAGRANCE: Record<string, number[]> = {
  ...Object.fromEntries(Object.entries(OWNED_BY).map(([t, c]) => [t, [c]])),
  similar_fragrances: [0, 1],
  similar_fragrances_overflow: [0, 1],
  chart_entries: [3],
  chart_entries_overflow: [4],
};

function only(tables: Tables, keep: (table: string, row: unknown[]) => boolean): Tables {
  return Object.fromEntries(
    Object.entries(tables).map(([t, rows]) => [t, rows.filter((r) => keep(t, JSON.parse(r) as unknown[]))]),
  );
}

/**
 * The rows of the new fragrances (and of a new house's brand, perfumer and notes) that the
 * warehouse lacks or has wrong, per table: {} when every new fragrance is complete.
 */
export async function newItemsIncomplete(
  dbPath: string,
  truth: GroundTruth,
  day: DayDiff,
): Promise<Record<string, { missing: string[]; extra: string[] }>> {
  const added = new Set(day.added);
  const slugs: Record<string, Set<string>> = {
    brands: new Set(day.newBrands),
    perfumers: new Set(day.newPerfumers),
    notes: new Set(day.newNotes),
  };
  const keep = (t: string, row: unknown[]) =>
    (t in OWNED_BY && added.has(row[OWNED_BY[t]!] as string)) || (slugs[t]?.has(row[0] as string) ?? false);
  const wh = await warehouseTables(dbPath, truth.serviceDate);
  return diffTables(only(truthTables(truth), keep), only(wh, keep));
}

/** Rows of the warehouse (current chart snapshot included) that still name a discontinued fragrance. */
export async function removedStillThere(
  dbPath: string,
  serviceDate: string,
  day: DayDiff,
): Promise<string[]> {
  const removed = new Set(day.removed);
  const wh = await warehouseTables(dbPath, serviceDate);
  const left = only(wh, (t, row) => (NAMES_FRAGRANCE[t] ?? []).some((c) => removed.has(row[c] as string)));
  return Object.entries(left).flatMap(([t, rows]) => rows.map((r) => `${t}: ${r}`));
}
