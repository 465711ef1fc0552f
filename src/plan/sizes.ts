import type { SyncState, WalkState } from '../warehouse/state-types.ts';
import type { CatalogueSizes } from './cost-model.ts';

/**
 * The mark of a walk that carries its total and page size. The paged walks (the fragrance
 * list, the notes: jobs/fragrances-page.ts, notes-page.ts) mark each page as `<name>@<page>`,
 * page 1 with the total; the others (accords, charts, brand catalogues) one mark under their
 * name.
 */
export function walkMark(walks: readonly WalkState[], name: string): WalkState | undefined {
  return walks.find((w) => w.walk === name) ?? walks.find((w) => w.walk === `${name}@1`);
}

/**
 * The catalogue sizes the warehouse knows, for `minimumCost`: after a completed sync, the
 * actual spend divided by the minimum of these sizes is the efficiency ratio (target <= 1.05).
 * Walk totals win over row counts when larger: a walk announces what upstream holds even
 * before every item was fetched.
 */
export function catalogueSizesFromState(state: SyncState): CatalogueSizes {
  const live = (entity: string) => state.items.filter((i) => i.entity === entity && !i.removed);
  const walkTotal = (name: string) => walkMark(state.walks, name)?.total ?? 0;
  const fragranceKeys = live('fragrance').map((i) => i.key);
  const fragrances = Math.max(fragranceKeys.length, walkTotal('fragrances'));
  // Fragrances announced but never read count as one review page (total 0) and no enrich.
  const reviewTotals = fragranceKeys.map((k) => state.reviewTotals.get(k) ?? 0);
  const similarCounts = fragranceKeys.map((k) => state.similarCounts.get(k) ?? Number.POSITIVE_INFINITY);
  return {
    fragrances,
    reviewTotals,
    brands: live('brand').map((b) => state.brandCatalogueSizes.get(b.key) ?? walkTotal(`brand:${b.key}`)),
    perfumers: live('perfumer').length,
    notes: Math.max(live('note').length, walkTotal('notes')),
    accords: Math.max(live('accord').length, walkTotal('accords')),
    charts: Math.max(live('chart').length, walkTotal('charts')),
    similarCounts,
  };
}
