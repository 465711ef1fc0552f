import type { Config } from '../config/index.ts';
import { minimumCost, type Cost, type PagedWalk } from '../plan/cost-model.ts';
import { MAX_PAGE_SIZE } from '../domain/endpoints.ts';
import { CONTRACT_TABLES } from '../warehouse/contract.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';

/*
 * What the run summary reads from the warehouse besides the ledger and the run's changes:
 * rows per table and the cheapest full sync of the catalogue as now mirrored (summary.ts).
 */

/** Rows per contract table, in one statement. */
export async function tableRows(wh: WarehouseHandle): Promise<Record<string, number>> {
  const [r] = await wh.query<Record<string, number>>(
    `SELECT ${CONTRACT_TABLES.map((t) => `(SELECT count(*) FROM ${t})::INTEGER AS ${t}`).join(', ')}`,
  );
  return Object.fromEntries(CONTRACT_TABLES.map((t) => [t, Number(r?.[t] ?? 0)]));
}

/** The minimum for the catalogue as the warehouse now mirrors it (rows: tableRows'), from the cost model. */
export async function catalogueMinimum(
  wh: WarehouseHandle,
  config: Config,
  counted: Promise<Record<string, number>>,
): Promise<Cost> {
  const [totals, brands, pageSizes] = await Promise.all([
    wh.query<{ n: number }>(
      'SELECT count(r.fragrance_id)::INTEGER AS n FROM fragrances f LEFT JOIN reviews r ON r.fragrance_id = f.id GROUP BY f.id',
    ),
    wh.query<{ n: number }>(
      'SELECT count(bf.fragrance_id)::INTEGER AS n FROM brands b LEFT JOIN brand_fragrances bf ON bf.brand_slug = b.slug GROUP BY b.slug',
    ),
    servicePageSizes(wh),
  ]);
  const rows = await counted;
  return minimumCost(
    {
      fragrances: rows.fragrances ?? 0,
      reviewTotals: totals.map((t) => Number(t.n)),
      brands: brands.map((b) => Number(b.n)),
      perfumers: rows.perfumers ?? 0,
      notes: rows.notes ?? 0,
      accords: rows.accords ?? 0,
      charts: rows.charts ?? 0,
      pageSizes,
    },
    config.datasets,
    config.objective,
  );
}

/**
 * The page sizes the service used, from the walk marks, where it served fewer than asked (a
 * legal reading: `pagination.limit` is the size used). Review walks keep no mark once read, so
 * a service that cut the list pages is taken to cut review pages alike.
 */
async function servicePageSizes(wh: WarehouseHandle): Promise<Partial<Record<PagedWalk, number>>> {
  const rows = await wh.query<{ kind: string; size: number }>(
    `SELECT CASE WHEN walk LIKE 'brand:%' THEN 'brands' ELSE regexp_extract(walk, '^[a-z]+') END AS kind,
            min(page_size)::INTEGER AS size
     FROM sync_walks WHERE page_size IS NOT NULL AND page_size < ${MAX_PAGE_SIZE.listFragrances} GROUP BY 1`,
  );
  const sizes: Partial<Record<PagedWalk, number>> = {};
  for (const r of rows) if (PAGED.includes(r.kind as PagedWalk)) sizes[r.kind as PagedWalk] = Number(r.size);
  const smallest = Math.min(...Object.values(sizes));
  if (sizes.reviews === undefined && Number.isFinite(smallest)) sizes.reviews = smallest;
  return sizes;
}

const PAGED: PagedWalk[] = ['fragrances', 'reviews', 'brands', 'notes', 'accords'];
