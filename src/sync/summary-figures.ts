import type { Config } from '../config/index.ts';
import { minimumCost, type Cost, type ListedWalk, type PagedWalk } from '../plan/cost-model.ts';
import { servedPageSizes } from '../plan/sizes.ts';
import { CONTRACT_TABLES, OVERFLOW_TABLES } from '../warehouse/contract.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { OVERFLOW_IN_RUN_SQL } from '../warehouse/overflow-rows.ts';
import { CYCLE_END, withCycle } from '../warehouse/run-sql.ts';
import { sqlFile } from '../warehouse/sql-files.ts';

/*
 * What the run summary reads from the warehouse besides the ledger and the run's changes:
 * rows per table, what the run stored apart in the overflow tables, and the cheapest full sync
 * of the catalogue as now mirrored (summary.ts).
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
  const [totals, brands, pageSizes, listed] = await Promise.all([
    // Each distinct review count once, with how many fragrances have it: a row per fragrance
    // (120,000 of them) crossing from the loader thread was the 120k sync's highest memory, at
    // its end (docs/benchmarks.md, session 16).
    wh.query<{ n: number; k: number }>(
      `SELECT n, count(*)::INTEGER AS k FROM (
         SELECT count(r.fragrance_id)::INTEGER AS n FROM fragrances f LEFT JOIN reviews r ON r.fragrance_id = f.id GROUP BY f.id
       ) GROUP BY n`,
    ),
    // A catalogue's pages follow its listing's total, which may name a member twice: the
    // larger of the members and the total its walk last saw.
    wh.query<{ n: number }>(
      `SELECT greatest(count(bf.fragrance_id), coalesce(any_value(w.total), 0))::INTEGER AS n
       FROM brands b LEFT JOIN brand_fragrances bf ON bf.brand_slug = b.slug
       LEFT JOIN sync_walks w ON w.walk = 'brand:' || b.slug GROUP BY b.slug`,
    ),
    servicePageSizes(wh),
    listTotals(wh),
  ]);
  const rows = await counted;
  return minimumCost(
    {
      fragrances: rows.fragrances ?? 0,
      reviewTotals: totals.flatMap((t) => Array<number>(Number(t.k)).fill(Number(t.n))),
      brands: brands.map((b) => Number(b.n)),
      perfumers: rows.perfumers ?? 0,
      notes: rows.notes ?? 0,
      accords: rows.accords ?? 0,
      charts: rows.charts ?? 0,
      pageSizes,
      listed,
    },
    config.datasets,
    config.objective,
  );
}

/** The page sizes the service used (plan/sizes.ts servedPageSizes), from the walk marks. */
async function servicePageSizes(wh: WarehouseHandle): Promise<Partial<Record<PagedWalk, number>>> {
  const walks = await wh.query<{ walk: string; pageSize: number }>(
    'SELECT walk, page_size::INTEGER AS "pageSize" FROM sync_walks WHERE page_size IS NOT NULL',
  );
  return servedPageSizes(walks.map((w) => ({ walk: w.walk, pageSize: Number(w.pageSize) })));
}

/**
 * The totals the service gave the fragrance, note and accord lists (their page-1 marks, the
 * walks' naming in src/plan/sizes.ts walkMark): a listing that names an entry twice (a legal
 * reading) holds more entries than the warehouse has items, and a full walk reads every page.
 */
async function listTotals(wh: WarehouseHandle): Promise<Partial<Record<ListedWalk, number>>> {
  const rows = await wh.query<{ walk: string; total: number }>(
    "SELECT walk, total FROM sync_walks WHERE walk IN ('fragrances@1', 'notes@1', 'accords')",
  );
  const listed: Partial<Record<ListedWalk, number>> = {};
  for (const r of rows) listed[r.walk.replace(/@1$/, '') as ListedWalk] = Number(r.total);
  return listed;
}

/** One run's calls and cents on one endpoint template, failed calls and their list price apart. */
export interface EndpointSpend {
  endpoint: string;
  calls: number;
  cents: number;
  failedCalls: number;
  failedCents: number;
}

export async function spendByEndpoint(wh: WarehouseHandle, runId: string): Promise<EndpointSpend[]> {
  const rows = await wh.query<{
    endpoint: string;
    calls: number;
    cents: number;
    failed_calls: number;
    failed_cents: number;
  }>(sqlFile('runs/spend-by-endpoint.sql'), [runId]);
  return rows.map((e) => ({
    endpoint: e.endpoint,
    calls: Number(e.calls),
    cents: Number(e.cents),
    failedCalls: Number(e.failed_calls),
    failedCents: Number(e.failed_cents),
  }));
}

/** Rows one run stored in an overflow table: entries the contract's keys cannot hold. */
export interface OverflowCount {
  table: string;
  rows: number;
}

/** The overflow tables this run stored rows in, in OVERFLOW_TABLES' order; none: []. */
export async function overflowInRun(wh: WarehouseHandle, runId: string): Promise<OverflowCount[]> {
  const rows = await wh.query<{ table_name: string; row_count: number }>(OVERFLOW_IN_RUN_SQL, [runId]);
  const counts = rows.map((r) => ({ table: r.table_name, rows: Number(r.row_count) }));
  return counts.filter((c) => c.rows > 0).sort((a, b) => rank(a.table) - rank(b.table));
}

const rank = (t: string) => (OVERFLOW_TABLES as readonly string[]).indexOf(t);

/**
 * "stored apart: N rows ...": stored (in DuckDB and the Parquet export), so the exit code
 * stays, but the contract tables alone do not show them, and a reader of those must know.
 */
export function overflowLines(counts: OverflowCount[]): string[] {
  if (counts.length === 0) return [];
  const total = counts.reduce((n, c) => n + c.rows, 0);
  const each = counts.map((c) => `${c.table} ${c.rows}`).join(', ');
  return [
    '',
    `stored apart: ${total} row${total === 1 ? '' : 's'} the contract's keys cannot hold (${each}; docs/data-dictionary.md, "Key collisions")`,
  ];
}

/**
 * One run's calls not answered 200, per HTTP status; `status` 0: no answer came back. On 404,
 * when the run's 404s confirmed removals, how many items they did (`removalsConfirmed`).
 */
export interface FailedStatus {
  status: number;
  calls: number;
  removalsConfirmed?: number;
}

/** The run's failed calls per status; `removals`: the items its 404s confirmed gone (FetchResult). */
export async function failedByStatus(
  wh: WarehouseHandle,
  runId: string,
  removals = 0,
): Promise<FailedStatus[]> {
  const rows = await wh.query<{ status: number; calls: number }>(sqlFile('runs/failed-by-status.sql'), [
    runId,
  ]);
  return rows.map((r) => {
    const f: FailedStatus = { status: Number(r.status), calls: Number(r.calls) };
    return f.status === 404 && removals > 0 ? { ...f, removalsConfirmed: removals } : f;
  });
}

/** Why a status failed, in the words a reader of the summary needs (404: usually not a fault). */
const STATUS_WORDS: Record<number, string> = {
  404: 'not found (an item gone upstream)',
  429: 'rate limited or quota exhausted',
  401: 'key refused',
  402: 'balance exhausted',
};

/**
 * "404 not found: 1, confirming 1 removal, no answer: 2": 404s with the removals they
 * confirmed, when the run knows of any; else "404 not found (an item gone upstream): 1", or,
 * when the run stopped for a wrong base URL (`wrongBaseUrl`), "404 not found (no such endpoint: ...)".
 */
export function failedStatusText(failed: FailedStatus[], wrongBaseUrl = false): string {
  return failed
    .map((f) => {
      if (f.status === 0) return `no answer: ${f.calls}`;
      // The lists themselves answered 404: no endpoint there, not items gone upstream.
      if (f.status === 404 && wrongBaseUrl)
        return `404 not found (no such endpoint: wrong base URL): ${f.calls}`;
      const n = f.removalsConfirmed ?? 0;
      if (n > 0) return `${f.status} not found: ${f.calls}, confirming ${n} removal${n === 1 ? '' : 's'}`;
      const words = STATUS_WORDS[f.status] ?? (f.status >= 500 ? 'server error' : 'refused');
      return `${f.status} ${words}: ${f.calls}`;
    })
    .join(', ');
}

/**
 * This run's cycle (sql/runs/cycle-before.sql): the full runs before it that read something,
 * and the service's days (YYYY-MM-DD, inclusive) the cycle's answered calls were made on,
 * when more than one.
 */
export async function cycleRuns(wh: WarehouseHandle, runId: string) {
  const [r] = await wh.query<{ n: number; first: string | null; last: string | null }>(
    withCycle(CYCLE_END.AT_RUN, sqlFile('runs/cycle-before.sql')),
    [runId],
  );
  const first = r?.first ?? '';
  const last = r?.last ?? first;
  const count = first === '' ? 0 : Math.round((Date.parse(last) - Date.parse(first)) / 86_400_000) + 1;
  return { earlier: Number(r?.n ?? 0), days: count > 1 ? { count, first, last } : null };
}

/** A cycle read over several service days: items read on an earlier one may have changed since. */
export function serviceDaysLine(days: { count: number; first: string; last: string } | null): string[] {
  if (days === null) return [];
  return [
    `read over ${days.count} service days (${days.first} .. ${days.last}): what changed meanwhile comes with the next nightly`,
  ];
}
