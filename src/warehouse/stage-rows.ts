import { epochDay } from '../util/calendar-day.ts';
import { sha1Hex } from '../util/sha1.ts';
import type { Cell } from './db.ts';
import type { LoadBatch, LoadItem, ProgressMark } from '../domain/items.ts';
import { STAGING, STAGING_TABLES, StagedColumns, type StagingTable } from './staging.ts';
import { checkItem } from './validate.ts';

export type StagedRows = Record<StagingTable, StagedColumns>;

/** The note pyramid's layers, in the order the merge maps their staged index back (0, 1, 2). */
const LAYERS = ['top', 'middle', 'base'] as const;

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
  const out = Object.fromEntries(
    STAGING_TABLES.map((t) => [t, new StagedColumns(Object.keys(STAGING[t]).length)]),
  ) as StagedRows;
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
  const walks = new Map<string, Extract<ProgressMark, { kind: 'walk' }> & { seq: number }>();
  batch.progress.forEach((mark, seq) => {
    if (mark.kind === 'fetched') {
      // A typo in a dataset name would silently never mark anything fetched: refuse it.
      if (!DATASETS.has(mark.dataset)) throw new Error(`unknown dataset '${mark.dataset}' in a fetched mark`);
      out.stg_mark_fetched.add(seq, mark.entity, mark.key, mark.dataset);
    } else if (mark.kind === 'stale') {
      if (!DATASETS.has(mark.dataset)) throw new Error(`unknown dataset '${mark.dataset}' in a stale mark`);
      // Beside the fetched marks, told apart by the prefix (the item gets its sync_items row
      // as a fetched one does), and on their own: they drive the clearing (08_progress.sql).
      out.stg_mark_fetched.add(seq, mark.entity, mark.key, `stale:${mark.dataset}`);
      out.stg_mark_stale.add(seq, mark.entity, mark.key, mark.dataset);
    } else if (mark.kind === 'walk') {
      walks.set(mark.walk, { ...mark, seq });
    } else {
      out.stg_mark_discovered.add(seq, mark.entity, mark.key, mark.source);
    }
  });
  for (const w of walks.values()) {
    const kept = w.kept ? JSON.stringify(w.kept) : null;
    out.stg_mark_walk.add(w.seq, w.walk, w.page, w.total, w.done, w.pageSize ?? null, kept);
  }
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
 * api_calls has no key upstream. A request whose sending was recorded has an id unique across
 * processes (its x-fragsync-call header): that is its key, so the same request reported
 * twice (a worker's spool reporting again, a replay) is one row, and null says "already
 * staged in this batch". Otherwise a content hash plus the occurrence number within the
 * batch makes reloading a batch idempotent while two identical attempts stay two rows.
 */
function callKey(
  runId: string,
  callId: string | undefined,
  fields: Cell[],
  occurrences: Map<string, number>,
): string | null {
  if (callId !== undefined) {
    const key = `call:${callId}`;
    if (occurrences.has(key)) return null;
    occurrences.set(key, 1);
    return sha1Hex(key);
  }
  const base = JSON.stringify([runId, ...fields]);
  const n = occurrences.get(base) ?? 0;
  occurrences.set(base, n + 1);
  return sha1Hex(`${base}#${n}`);
}

/**
 * A key repeated inside one list: its first (best) entry, at its index, is the contract row
 * (the table's primary key allows one row per key); every later one goes to `repeat`, also
 * with its index, for the list's overflow table. Done here, per item, instead of a window in
 * SQL. The set is made only for lists of more than one entry.
 */
function eachFirst<T>(
  list: readonly T[],
  key: (e: T) => string | number,
  first: (e: T, i: number) => void,
  repeat: (e: T, i: number) => void,
): void {
  const seen = list.length > 1 ? new Set<string | number>() : null;
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    const k = key(e);
    if (seen?.has(k)) repeat(e, i);
    else {
      seen?.add(k);
      first(e, i);
    }
  }
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
      out.stg_fragrance.add(
        seq,
        f.id,
        f.name,
        f.brand,
        f.brandSlug,
        f.perfumer,
        f.perfumerSlug,
        f.year,
        f.score,
      );
      // Staged as the layer's index: the merge names it (sql/merge/02_fragrances.sql).
      LAYERS.forEach((layer, l) =>
        f.notes[layer].forEach((note, i) => out.stg_fragrance_note.add(seq, l, i, note)),
      );
      f.accords.forEach((a, i) => out.stg_fragrance_accord.add(seq, i, a.name, a.strength));
      return;
    }
    case 'fragranceSummary':
      out.stg_fragrance_summary.add(seq, item.id, item.name, item.brand);
      return;
    case 'similar': {
      const id = item.fragranceId;
      out.stg_similar_head.add(seq, id);
      eachFirst(
        item.ids,
        (s) => s,
        (s, i) => out.stg_similar.add(seq, s, i, item.scores[i]!),
        (s, i) => out.stg_similar_overflow.add(seq, id, s, i, item.scores[i]!),
      );
      return;
    }
    case 'wearing': {
      const s = item.seasons;
      const id = item.fragranceId;
      out.stg_wearing.add(seq, id, s.spring, s.summer, s.fall, s.winter);
      eachFirst(
        item.moods,
        (m) => m.label,
        (m, i) => out.stg_wearing_mood.add(seq, m.label, i, m.score),
        (m, i) => out.stg_label_overflow.add(seq, id, 'moods', m.label, i, m.score),
      );
      eachFirst(
        item.occasions,
        (m) => m.label,
        (m, i) => out.stg_wearing_occasion.add(seq, m.label, i, m.score),
        (m, i) => out.stg_label_overflow.add(seq, id, 'occasions', m.label, i, m.score),
      );
      return;
    }
    case 'reviews':
      (item.mode === 'replace' ? out.stg_reviews_replace : out.stg_reviews_prepend).add(
        seq,
        item.fragranceId,
        item.total,
        item.dates.length,
      );
      for (let i = 0; i < item.dates.length; i++)
        out.stg_review.add(seq, epochDay(item.dates[i]!), item.ratings[i]!, item.texts[i] ?? null);
      return;
    case 'brand':
      out.stg_brand.add(seq, item.slug, item.name, item.country, item.description);
      return;
    case 'brandCatalogue':
      out.stg_catalogue_head.add(seq, item.brandSlug, item.complete ?? true);
      // A membership is a pair: an id listed twice says nothing more the second time.
      eachFirst(
        item.fragrances,
        (f) => f.id,
        (f) => out.stg_catalogue.add(seq, f.id),
        () => undefined,
      );
      return;
    case 'perfumer':
      out.stg_perfumer.add(seq, item.slug, item.name, item.nationality, item.bio);
      return;
    case 'note':
      out.stg_note.add(
        seq,
        item.slug,
        item.name,
        item.family,
        item.description ?? null,
        item.description !== undefined,
      );
      return;
    case 'accord':
      out.stg_accord.add(seq, item.slug, item.name);
      return;
    case 'chart':
      out.stg_chart.add(seq, item.slug, item.title);
      return;
    case 'chartSnapshot': {
      const [slug, day] = [item.chartSlug, item.snapshotDate];
      out.stg_chart.add(seq, slug, item.title);
      out.stg_chart_head.add(seq, slug, day);
      // Tied ranks: the first entry of a rank (in API order) is the contract row.
      eachFirst(
        item.entries,
        (e) => e.rank,
        (e) => out.stg_chart_entry.add(seq, slug, day, e.rank, e.id, e.name, e.brand, e.score),
        (e, i) => out.stg_chart_entry_overflow.add(seq, slug, day, i, e.rank, e.id, e.name, e.brand, e.score),
      );
      return;
    }
    case 'reviewDigest':
      out.stg_review_digest.add(seq, item.fragranceId, JSON.stringify(item.raw ?? null));
      return;
    case 'removal':
      for (const key of item.keys) out.stg_removal.add(seq, item.entity, key);
      return;
    case 'quarantine':
      out.stg_quarantine.add(
        seq,
        item.endpoint,
        item.key,
        item.reason,
        JSON.stringify(item.raw ?? null),
        item.scope ?? 'response',
      );
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
      const [at, method, endpoint, status, cents, remaining] = fields;
      const key = callKey(runId, item.callId, fields, occurrences);
      if (key === null) return;
      out.stg_api_call.add(seq, at, method, endpoint, status, cents, remaining, key);
      return;
    }
  }
}
