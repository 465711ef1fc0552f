/**
 * Load benchmark: a synthetic catalogue of realistic size (default 120k fragrances, ~15
 * notes, ~6 accords, 20 similar, wearing with 8 moods and 8 occasions, ~3 reviews each,
 * plus brands, perfumers, notes, accords) loaded through Warehouse.load in realistic batch
 * sizes, then the same rows loaded by DuckDB's own bulk path (CSV files -> INSERT ... SELECT
 * read_csv) into a second fresh warehouse as the ceiling. Prints rows/s of both, the ratio
 * and peak RSS. BENCH_FRAGRANCES and BENCH_BATCH_FRAGRANCES override the sizes.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { reviewColumns, type LoadItem } from '../src/domain/items.ts';
import { useDefaultMemoryLimit } from '../src/warehouse/memory-limit.ts';
import { Warehouse } from '../src/warehouse/warehouse.ts';

const FRAGRANCES = Number(process.env.BENCH_FRAGRANCES ?? 120_000);
const BATCH_FRAGRANCES = Number(process.env.BENCH_BATCH_FRAGRANCES ?? 500);
const BRANDS = 7_000;
const PERFUMERS = 2_800;
const NOTES = 2_400;
const ACCORDS = 90;

let seed = 42;
const rand = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = (n: number): number => Math.floor(rand() * n);
const fid = (i: number): string => `brand-${i % BRANDS}/fragrance-${i}`;

/** CPU time of this process, all threads (DuckDB's included), in ms. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

let peakRss = 0;
const sampleRss = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

function catalogueItems(): LoadItem[] {
  const items: LoadItem[] = [];
  for (let i = 0; i < BRANDS; i++)
    items.push({
      kind: 'brand',
      slug: `brand-${i}`,
      name: `Brand ${i}`,
      country: 'FR',
      description: 'A house of perfume '.repeat(5),
    });
  for (let i = 0; i < PERFUMERS; i++)
    items.push({
      kind: 'perfumer',
      slug: `perfumer-${i}`,
      name: `Perfumer ${i}`,
      nationality: 'FR',
      bio: 'Trained in Grasse. '.repeat(8),
    });
  for (let i = 0; i < NOTES; i++)
    items.push({
      kind: 'note',
      slug: `note-${i}`,
      name: `Note ${i}`,
      family: `family-${i % 12}`,
      description: 'Smells of something. '.repeat(4),
    });
  for (let i = 0; i < ACCORDS; i++) items.push({ kind: 'accord', slug: `accord-${i}`, name: `Accord ${i}` });
  return items;
}

function fragranceItems(i: number): LoadItem[] {
  const id = fid(i);
  const notes = (n: number) => Array.from({ length: n }, () => `Note ${pick(NOTES)}`);
  const reviews = Array.from({ length: 1 + pick(5) }, () => ({
    date: `2024-0${1 + pick(9)}-1${pick(10)}`,
    rating: 1 + pick(5),
    text: rand() < 0.5 ? null : 'Lovely sillage that lasts all day on skin.',
  }));
  return [
    {
      kind: 'fragrance',
      id,
      name: `Fragrance ${i}`,
      brand: `Brand ${i % BRANDS}`,
      brandSlug: `brand-${i % BRANDS}`,
      perfumer: `Perfumer ${i % PERFUMERS}`,
      perfumerSlug: `perfumer-${i % PERFUMERS}`,
      year: 1950 + pick(75),
      score: Math.round(rand() * 500) / 100,
      notes: { top: notes(5), middle: notes(5), base: notes(5) },
      accords: Array.from({ length: 6 }, (_, k) => ({
        name: `Accord ${(i + k) % ACCORDS}`,
        strength: rand(),
      })),
    },
    {
      kind: 'similar',
      fragranceId: id,
      ids: Array.from({ length: 20 }, (_, k) => fid((i + 1 + k * 7) % FRAGRANCES)),
      scores: Array.from({ length: 20 }, (_, k) => 1 - k / 20),
    },
    {
      kind: 'wearing',
      fragranceId: id,
      seasons: { spring: rand(), summer: rand(), fall: rand(), winter: rand() },
      moods: Array.from({ length: 8 }, (_, k) => ({ label: `mood-${k}`, score: rand() })),
      occasions: Array.from({ length: 8 }, (_, k) => ({ label: `occasion-${k}`, score: rand() })),
    },
    { kind: 'reviews', fragranceId: id, mode: 'replace', total: reviews.length, ...reviewColumns(reviews) },
  ];
}

/** The rows the contract tables get from one item, as CSV lines (synthetic text has no commas or quotes). */
function csvRows(item: LoadItem, out: Record<string, WriteStream>): number {
  let n = 0;
  const w = (t: string, cols: (string | number | null)[]): void => {
    out[t]!.write(`${cols.map((c) => (c === null ? '' : String(c))).join(',')}\n`);
    n++;
  };
  switch (item.kind) {
    case 'fragrance': {
      const f = item;
      w('fragrances', [f.id, f.name, f.brand, f.brandSlug, f.perfumer, f.perfumerSlug, f.year, f.score]);
      for (const layer of ['top', 'middle', 'base'] as const) {
        f.notes[layer].forEach((note, p) => w('fragrance_notes', [f.id, layer, p, note]));
      }
      f.accords.forEach((a, p) => w('fragrance_accords', [f.id, p, a.name, a.strength]));
      break;
    }
    case 'similar':
      item.ids.forEach((sid, r) => w('similar_fragrances', [item.fragranceId, sid, r, item.scores[r]!]));
      break;
    case 'wearing': {
      const s = item.seasons;
      w('wearing_stats', [item.fragranceId, s.spring, s.summer, s.fall, s.winter]);
      item.moods.forEach((m, r) => w('wearing_moods', [item.fragranceId, m.label, r, m.score]));
      item.occasions.forEach((m, r) => w('wearing_occasions', [item.fragranceId, m.label, r, m.score]));
      break;
    }
    case 'reviews':
      item.dates.forEach((d, r) =>
        w('reviews', [item.fragranceId, d, item.ratings[r]!, item.texts[r] ?? null]),
      );
      break;
    case 'brand':
      w('brands', [item.slug, item.name, item.country, item.description]);
      break;
    case 'perfumer':
      w('perfumers', [item.slug, item.name, item.nationality, item.bio]);
      break;
    case 'note':
      w('notes', [item.slug, item.name, item.family, item.description ?? null]);
      break;
    case 'accord':
      w('accords', [item.slug, item.name]);
      break;
    default:
      break;
  }
  return n;
}

const CSV_TABLES = [
  'fragrances',
  'fragrance_notes',
  'fragrance_accords',
  'similar_fragrances',
  'wearing_stats',
  'wearing_moods',
  'wearing_occasions',
  'reviews',
  'brands',
  'perfumers',
  'notes',
  'accords',
];

const dir = await mkdtemp(join(tmpdir(), 'fragsync-bench-'));
try {
  const streams = Object.fromEntries(CSV_TABLES.map((t) => [t, createWriteStream(join(dir, `${t}.csv`))]));
  const wh = await Warehouse.open(join(dir, 'loader.duckdb'));
  let rows = 0;
  let batches = 0;
  let worstBatchMs = 0;
  let loaderMs = 0;
  let loaderCpuMs = 0;
  // The batch's CSV rows are on disk before its load is timed: the file writes would
  // otherwise run on the same cores inside the loader's window.
  const timed = async (items: LoadItem[]) => {
    for (const item of items) rows += csvRows(item, streams);
    await Promise.all(Object.values(streams).map((s) => new Promise((r) => s.write('', r))));
    const [t, cpu] = [performance.now(), cpuMs()];
    await wh.load({ runId: 'bench', items, progress: [] });
    const ms = performance.now() - t;
    loaderMs += ms;
    loaderCpuMs += cpuMs() - cpu;
    worstBatchMs = Math.max(worstBatchMs, ms);
    batches++;
    sampleRss();
  };
  await timed(catalogueItems());
  for (let start = 0; start < FRAGRANCES; start += BATCH_FRAGRANCES) {
    const items: LoadItem[] = [];
    for (let i = start; i < Math.min(FRAGRANCES, start + BATCH_FRAGRANCES); i++)
      items.push(...fragranceItems(i));
    await timed(items);
    if (batches % 40 === 0) process.stderr.write(`  loader: ${start + BATCH_FRAGRANCES} fragrances\n`);
  }
  await Promise.all(Object.values(streams).map((s) => new Promise((r) => s.end(r))));
  const [counted] = await wh.query<{ n: number }>(
    `SELECT (${CSV_TABLES.map((t) => `(SELECT count(*) FROM ${t})`).join(' + ')})::BIGINT AS n`,
  );
  await wh.close();

  // The loader's own figures first: the ceiling below is one statement per table over all
  // 7 million rows, and a failure there must not lose them (session 8).
  console.log(
    `loader: ${rows.toLocaleString('en-US')} rows in ${(loaderMs / 1000).toFixed(1)} s, CPU ${(loaderCpuMs / 1000).toFixed(1)} s`,
  );
  const ceiling = await Warehouse.open(join(dir, 'ceiling.duckdb'));
  // DuckDB's own bulk load, with DuckDB's own memory (80% of RAM), not the sync's
  // memory_limit (sql/session.sql): one INSERT of a whole table with its primary key does not
  // fit in it. `RESET memory_limit` did not lift the limit (see memory-limit.ts); the other
  // session settings (one thread, the checkpoint threshold) stay, as for the loader.
  const ceilingMemory = await useDefaultMemoryLimit((sql) => ceiling.query(sql));
  const [t0, cpu0] = [performance.now(), cpuMs()];
  for (const t of CSV_TABLES) {
    const cols = await ceiling.query<{ c: string; ty: string }>(
      `SELECT column_name AS c, data_type AS ty FROM duckdb_columns() WHERE table_name = $1 AND schema_name = 'main' AND NOT starts_with(column_name, '_') ORDER BY column_index`,
      [t],
    );
    const spec = cols.map((c) => `'${c.c}': '${c.ty}'`).join(', ');
    await ceiling.query(
      `INSERT INTO ${t} SELECT *, 'bench', now() FROM read_csv('${join(dir, `${t}.csv`)}', header = false, columns = {${spec}})`,
    );
  }
  const ceilingMs = performance.now() - t0;
  const ceilingCpuMs = cpuMs() - cpu0;
  sampleRss();
  await ceiling.close();

  const loaderRate = rows / (loaderMs / 1000);
  const ceilingRate = rows / (ceilingMs / 1000);
  console.log(
    `fragrances: ${FRAGRANCES}, batch: ${BATCH_FRAGRANCES} fragrances (${BATCH_FRAGRANCES * 4} items), batches: ${batches}`,
  );
  console.log(`contract rows: ${rows} (in warehouse: ${counted?.n})`);
  console.log(
    `Warehouse.load: ${(loaderMs / 1000).toFixed(1)} s, ${Math.round(loaderRate).toLocaleString('en')} rows/s, slowest batch ${Math.round(worstBatchMs)} ms, CPU ${(loaderCpuMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `DuckDB bulk (read_csv -> INSERT): ${(ceilingMs / 1000).toFixed(1)} s, ${Math.round(ceilingRate).toLocaleString('en')} rows/s, CPU ${(ceilingCpuMs / 1000).toFixed(1)} s (memory_limit ${ceilingMemory})`,
  );
  console.log(
    `ratio loader/ceiling: ${(loaderRate / ceilingRate).toFixed(2)} (CPU seconds, ceiling/loader: ${(ceilingCpuMs / loaderCpuMs).toFixed(2)})`,
  );
  console.log(
    `peak RSS: ${Math.round(peakRss / 2 ** 20)} MiB; node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'})`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
