import { createHash } from 'node:crypto';
import type { Cell } from './db.ts';
import type { LoadBatch, LoadItem } from './rows.ts';
import { STAGING_TABLES, type StagingTable } from './staging.ts';
import { checkItem } from './validate.ts';

export type StagedRows = Record<StagingTable, Cell[][]>;

const DATASETS = new Set(['profile', 'similar', 'wearing', 'reviews', 'reviewDigest', 'catalogue']);

/**
 * Flattens a batch into rows per staging table. `seq` is the item's index, so merges can
 * let the last item for a key win. Invalid items become quarantine rows here.
 *
 * Where the last item for a key simply replaces the earlier ones (see `lastWinsKey`), only
 * that item is staged: the merges need no window (`QUALIFY row_number() ...`) to pick it,
 * and a window costs DuckDB ~3 ms per statement even on a few rows.
 */
export function stageBatch(batch: LoadBatch): StagedRows {
  const out = Object.fromEntries(STAGING_TABLES.map((t) => [t, [] as Cell[][]])) as StagedRows;
  const callOccurrences = new Map<string, number>();
  const items = batch.items.map(checkItem);
  const keys = items.map(lastWinsKey);
  const last = new Map<string, number>();
  keys.forEach((key, seq) => {
    if (key !== null) last.set(key, seq);
  });
  items.forEach((item, seq) => {
    const key = keys[seq] ?? null;
    if (key === null || last.get(key) === seq) stageItem(out, item, seq, batch.runId, callOccurrences);
  });
  // The last mark per walk wins (sync_walks holds one row per walk).
  const walks = new Map<string, Cell[]>();
  batch.progress.forEach((mark, seq) => {
    if (mark.kind === 'fetched') {
      // A typo in a dataset name would silently never mark anything fetched: refuse it.
      if (!DATASETS.has(mark.dataset)) throw new Error(`unknown dataset '${mark.dataset}' in a fetched mark`);
      out.stg_mark_fetched.push([seq, mark.entity, mark.key, mark.dataset]);
    } else if (mark.kind === 'walk') {
      walks.set(mark.walk, [seq, mark.walk, mark.page, mark.total, mark.done]);
    } else {
      out.stg_mark_discovered.push([seq, mark.entity, mark.key, mark.source]);
    }
  });
  for (const row of walks.values()) out.stg_mark_walk.push(row);
  return out;
}

/**
 * The key of an item that, as a whole, replaces every earlier item with that key in the
 * batch (the merge keeps only the last one), or null. Not here: notes (a list page's note
 * keeps the description of an earlier profile of the note), review prepends (they chain),
 * charts and their snapshots (two item kinds write stg_chart), removals and the rest.
 */
function lastWinsKey(item: LoadItem): string | null {
  switch (item.kind) {
    case 'fragrance':
    case 'fragranceSummary':
      return `${item.kind}:${item.id}`;
    case 'similar':
    case 'wearing':
    case 'reviewDigest':
      return `${item.kind}:${item.fragranceId}`;
    case 'reviews':
      return item.mode === 'replace' ? `${item.kind}:${item.fragranceId}` : null;
    case 'brand':
    case 'perfumer':
    case 'accord':
      return `${item.kind}:${item.slug}`;
    case 'brandCatalogue':
      return `${item.kind}:${item.brandSlug}`;
    default:
      return null;
  }
}

/**
 * api_calls has no key upstream; a content hash plus the occurrence number within the batch
 * makes reloading a batch idempotent while two identical attempts in one batch stay two rows.
 */
function callKey(runId: string, fields: Cell[], occurrences: Map<string, number>): string {
  const base = JSON.stringify([runId, ...fields]);
  const n = occurrences.get(base) ?? 0;
  occurrences.set(base, n + 1);
  return createHash('sha1').update(`${base}#${n}`).digest('hex');
}

/**
 * A key repeated inside one list keeps its first (best) entry and that entry's index: the
 * tables' primary keys allow one row per key. Done here, per item, instead of a window in SQL.
 */
function firstOf<T>(list: readonly T[], key: (e: T) => string): [T, number][] {
  const seen = new Set<string>();
  const out: [T, number][] = [];
  list.forEach((e, i) => {
    const k = key(e);
    if (!seen.has(k)) {
      seen.add(k);
      out.push([e, i]);
    }
  });
  return out;
}

function stageItem(
  out: StagedRows,
  item: LoadItem,
  seq: number,
  runId: string,
  occurrences: Map<string, number>,
): void {
  switch (item.kind) {
    case 'fragrance': {
      const f = item;
      out.stg_fragrance.push([
        seq,
        f.id,
        f.name,
        f.brand,
        f.brandSlug,
        f.perfumer,
        f.perfumerSlug,
        f.year,
        f.score,
      ]);
      for (const layer of ['top', 'middle', 'base'] as const) {
        f.notes[layer].forEach((note, i) => out.stg_fragrance_note.push([seq, layer, i, note]));
      }
      f.accords.forEach((a, i) => out.stg_fragrance_accord.push([seq, i, a.name, a.strength]));
      return;
    }
    case 'fragranceSummary':
      out.stg_fragrance_summary.push([seq, item.id, item.name, item.brand]);
      return;
    case 'similar':
      out.stg_similar_head.push([seq, item.fragranceId]);
      firstOf(item.entries, (e) => e.id).forEach(([e, i]) =>
        out.stg_similar.push([seq, e.id, i, e.similarityScore]),
      );
      return;
    case 'wearing': {
      const s = item.seasons;
      out.stg_wearing.push([seq, item.fragranceId, s.spring, s.summer, s.fall, s.winter]);
      firstOf(item.moods, (m) => m.label).forEach(([m, i]) =>
        out.stg_wearing_mood.push([seq, m.label, i, m.score]),
      );
      firstOf(item.occasions, (m) => m.label).forEach(([m, i]) =>
        out.stg_wearing_occasion.push([seq, m.label, i, m.score]),
      );
      return;
    }
    case 'reviews':
      (item.mode === 'replace' ? out.stg_reviews_replace : out.stg_reviews_prepend).push([
        seq,
        item.fragranceId,
        item.total,
        item.reviews.length,
      ]);
      for (const r of item.reviews) out.stg_review.push([seq, r.date, r.rating, r.text]);
      return;
    case 'brand':
      out.stg_brand.push([seq, item.slug, item.name, item.country, item.description]);
      return;
    case 'brandCatalogue':
      out.stg_catalogue_head.push([seq, item.brandSlug]);
      for (const [f] of firstOf(item.fragrances, (f) => f.id)) out.stg_catalogue.push([seq, f.id]);
      return;
    case 'perfumer':
      out.stg_perfumer.push([seq, item.slug, item.name, item.nationality, item.bio]);
      return;
    case 'note':
      out.stg_note.push([
        seq,
        item.slug,
        item.name,
        item.family,
        item.description ?? null,
        item.description !== undefined,
      ]);
      return;
    case 'accord':
      out.stg_accord.push([seq, item.slug, item.name]);
      return;
    case 'chart':
      out.stg_chart.push([seq, item.slug, item.title]);
      return;
    case 'chartSnapshot':
      out.stg_chart.push([seq, item.chartSlug, item.title]);
      out.stg_chart_head.push([seq, item.chartSlug, item.snapshotDate]);
      for (const e of item.entries) {
        out.stg_chart_entry.push([
          seq,
          item.chartSlug,
          item.snapshotDate,
          e.rank,
          e.id,
          e.name,
          e.brand,
          e.score,
        ]);
      }
      return;
    case 'reviewDigest':
      out.stg_review_digest.push([seq, item.fragranceId, JSON.stringify(item.raw ?? null)]);
      return;
    case 'removal':
      for (const key of item.keys) out.stg_removal.push([seq, item.entity, key]);
      return;
    case 'quarantine':
      out.stg_quarantine.push([seq, item.endpoint, item.key, item.reason, JSON.stringify(item.raw ?? null)]);
      return;
    case 'apiCall': {
      const fields: Cell[] = [
        new Date(item.at).toISOString(),
        item.method,
        item.endpoint,
        item.status,
        item.costCents,
        item.quotaRemaining,
      ];
      out.stg_api_call.push([seq, ...fields, callKey(runId, fields, occurrences)]);
      return;
    }
  }
}
