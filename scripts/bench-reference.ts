/**
 * The reference the sync benchmark compares fragsync against: a minimal hand-written mirror.
 * One process, one undici Pool (keep-alive), a fixed number of requests in flight (p-limit),
 * JSON.parse of each body and DuckDB appenders on the main thread. No queue, governor, ledger,
 * journal, retries, primary keys or merges. It makes the calls a cost-minimal full mirror makes
 * (fragsync's default datasets): every list walked at page size 50; per fragrance its profile,
 * similar (limit 50), wearing stats and every review page; notes and each note's profile;
 * accords; charts and each chart; every brand (profile and catalogue) and perfumer the profiles
 * name. Trending is opt-in in fragsync (datasets.trending: false), so here too.
 *
 * Standalone: `node --import tsx scripts/bench-reference.ts` starts a simulator of
 * BENCH_FRAGRANCES (default 20k) fragrances in a child process, like bench-sync.ts, answering
 * after BENCH_LATENCY_MS (default 0) like a remote service. Then, against the same service
 * (warm, its ledger already read, so the mirror's calls are compared alone), the floor of
 * bench-floor.ts for BENCH_FLOOR_S seconds (default 10, 0 = none) at BENCH_FLOOR_CONCURRENCY
 * requests in flight (default: the mirror's).
 */
import { spawn } from 'node:child_process';
import { processCpuS } from './proc-cpu.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBDateValue, DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import pLimit from 'p-limit';
import { Pool, type Dispatcher } from 'undici';
import { Occupancy, type OccupancyFigures } from '../src/api/occupancy.ts';
import { floorLine, PathSample, runFloor } from './bench-floor.ts';

const PAGE = 50; // the spec's largest page size for every list used here (MAX_PAGE_SIZE)
const FLUSH_ROWS = 5_000;

type Col = 'V' | 'I' | 'D' | 'DATE';
type Val = string | number | null;
const TABLES = {
  fragrances: 'id V, name V, brand V, brand_slug V, perfumer V, perfumer_slug V, year I, score D',
  fragrance_notes: 'fragrance_id V, layer V, position I, note V',
  fragrance_accords: 'fragrance_id V, position I, accord V, strength D',
  similar_fragrances: 'fragrance_id V, similar_id V, rank I, similarity_score D',
  wearing_stats: 'fragrance_id V, spring D, summer D, fall D, winter D',
  wearing_moods: 'fragrance_id V, label V, rank I, score D',
  wearing_occasions: 'fragrance_id V, label V, rank I, score D',
  reviews: 'fragrance_id V, date DATE, rating D, text V',
  brands: 'slug V, name V, country V, description V',
  brand_fragrances: 'brand_slug V, fragrance_id V',
  perfumers: 'slug V, name V, nationality V, bio V',
  notes: 'slug V, name V, family V, description V',
  accords: 'slug V, name V',
  charts: 'slug V, title V',
  chart_entries: 'chart_slug V, snapshot_date DATE, rank I, fragrance_id V, name V, brand V, score D',
} as const;
const SQL_TYPE: Record<Col, string> = { V: 'VARCHAR', I: 'INTEGER', D: 'DOUBLE', DATE: 'DATE' };
const DAY_MS = 86_400_000;

/** One appender per table, values appended one by one, flushed every FLUSH_ROWS rows. */
class Sink {
  rows = 0;
  constructor(
    private readonly app: DuckDBAppender,
    private readonly cols: Col[],
  ) {}
  row(...vals: Val[]): void {
    this.cols.forEach((c, i) => {
      const v = vals[i] ?? null;
      if (v === null) this.app.appendNull();
      else if (c === 'V') this.app.appendVarchar(String(v));
      else if (c === 'I') this.app.appendInteger(Number(v));
      else if (c === 'D') this.app.appendDouble(Number(v));
      else this.app.appendDate(new DuckDBDateValue(Math.floor(Date.parse(String(v)) / DAY_MS)));
    });
    this.app.endRow();
    if (++this.rows % FLUSH_ROWS === 0) this.app.flushSync();
  }
  close(): void {
    this.app.closeSync(); // flushes what is left
  }
}

interface Paged {
  pagination: { total: number };
}
type Named = { id: string; name: string; brand: string; score: number };
interface Profile {
  name: string;
  brand: string;
  brandSlug: string;
  perfumer: string;
  perfumerSlug: string;
  year: number;
  score: number;
  notes: Record<'top' | 'middle' | 'base', string[]>;
  accords: { name: string; strength: number }[];
}
type Labelled = { label: string; score: number }[];
interface Wearing {
  seasons: Record<'spring' | 'summer' | 'fall' | 'winter', number>;
  moods: Labelled;
  occasions: Labelled;
}

const fragPath = (id: string): string => `/v1/fragrances/${id.split('/').map(encodeURIComponent).join('/')}`;

export async function runReference(opts: {
  url: string;
  key: string;
  dbPath: string;
  concurrency?: number;
  connections?: number;
}): Promise<{
  calls: number;
  wallS: number;
  cpuS: number;
  rows: number;
  inFlight: OccupancyFigures;
  /** A uniform sample of the paths requested: the floor's mix (bench-floor.ts). */
  sample: string[];
}> {
  const t0 = performance.now(); // like bench-sync's timer around runSync: opening the file counts
  const cpu0 = process.cpuUsage();
  const instance = await DuckDBInstance.create(opts.dbPath);
  const conn = await instance.connect();
  const sinks = {} as Record<keyof typeof TABLES, Sink>;
  for (const [table, spec] of Object.entries(TABLES) as [keyof typeof TABLES, string][]) {
    const cols = spec.split(', ').map((c) => c.split(' ') as [string, Col]);
    await conn.run(`CREATE TABLE ${table} (${cols.map(([n, t]) => `${n} ${SQL_TYPE[t]}`).join(', ')})`);
    sinks[table] = new Sink(
      await conn.createAppender(table),
      cols.map(([, t]) => t),
    );
  }
  // One connection per request in flight (no pipelining): what "64 requests in flight" means.
  const pool = new Pool(opts.url, { connections: opts.connections ?? opts.concurrency ?? 64, pipelining: 1 });
  const limit = pLimit(opts.concurrency ?? 64);
  // Measured as fragsync measures it (src/api/occupancy.ts): on the wire from the moment a
  // request starts until its body is read.
  const meter = new Occupancy(opts.concurrency ?? 64);
  meter.start(() => (limit.pendingCount > 0 ? 'jobsBusy' : 'noneReady'));
  const headers = { authorization: `Bearer ${opts.key}` };
  let calls = 0;
  let failure: unknown;
  const sample = new PathSample();

  const get = <T>(path: string): Promise<{ body: T; date: string }> =>
    limit(async () => {
      if (failure !== undefined) throw failure;
      calls++;
      sample.offer(path);
      meter.wireChange(1);
      let res: Dispatcher.ResponseData;
      let text: string;
      try {
        res = await pool.request({ path, method: 'GET', headers });
        text = await res.body.text();
      } finally {
        meter.wireChange(-1);
      }
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
      const served = res.headers.date; // the service's clock: the chart snapshot day
      const date = (typeof served === 'string' ? new Date(served) : new Date()).toISOString().slice(0, 10);
      return { body: JSON.parse(text) as T, date };
    });
  /** Page 1 tells the total; the other pages are then requested all at once. */
  const walk = async <T extends Paged>(path: string, onPage: (body: T) => void): Promise<void> => {
    const first = await get<T>(`${path}?page=1&limit=${PAGE}`);
    onPage(first.body);
    const pages = Math.ceil(first.body.pagination.total / PAGE);
    const rest = Array.from({ length: Math.max(0, pages - 1) }, (_, i) => i + 2);
    await Promise.all(rest.map(async (p) => onPage((await get<T>(`${path}?page=${p}&limit=${PAGE}`)).body)));
  };

  const running: Promise<void>[] = [];
  const go = (p: Promise<void>): void => {
    running.push(p.catch((err: unknown) => void (failure ??= err)));
  };
  const seenBrands = new Set<string>();
  const seenPerfumers = new Set<string>();
  const s = sinks;

  const brand = async (slug: string): Promise<void> => {
    const path = `/v1/brands/${encodeURIComponent(slug)}`;
    const b = (await get<{ name: string; country: string; description: string }>(path)).body;
    s.brands.row(slug, b.name, b.country, b.description);
    await walk<Paged & { data: { id: string }[] }>(`${path}/fragrances`, (pg) => {
      for (const f of pg.data) s.brand_fragrances.row(slug, f.id);
    });
  };
  const perfumer = async (slug: string): Promise<void> => {
    const p = (
      await get<{ name: string; nationality: string; bio: string }>(
        `/v1/perfumers/${encodeURIComponent(slug)}`,
      )
    ).body;
    s.perfumers.row(slug, p.name, p.nationality, p.bio);
  };
  const profile = async (id: string): Promise<void> => {
    const p = (await get<Profile>(fragPath(id))).body;
    s.fragrances.row(id, p.name, p.brand, p.brandSlug, p.perfumer, p.perfumerSlug, p.year, p.score);
    for (const layer of ['top', 'middle', 'base'] as const)
      p.notes[layer].forEach((n, i) => s.fragrance_notes.row(id, layer, i, n));
    p.accords.forEach((a, i) => s.fragrance_accords.row(id, i, a.name, a.strength));
    if (p.brandSlug && !seenBrands.has(p.brandSlug)) {
      seenBrands.add(p.brandSlug);
      go(brand(p.brandSlug));
    }
    if (p.perfumerSlug && !seenPerfumers.has(p.perfumerSlug)) {
      seenPerfumers.add(p.perfumerSlug);
      go(perfumer(p.perfumerSlug));
    }
  };
  const similar = async (id: string): Promise<void> => {
    const body = (
      await get<{ similar: (Named & { similarityScore: number })[] }>(`${fragPath(id)}/similar?limit=${PAGE}`)
    ).body;
    body.similar.forEach((e, i) => s.similar_fragrances.row(id, e.id, i, e.similarityScore));
  };
  const wearing = async (id: string): Promise<void> => {
    const w = (await get<Wearing>(`${fragPath(id)}/wearing-stats`)).body;
    s.wearing_stats.row(id, w.seasons.spring, w.seasons.summer, w.seasons.fall, w.seasons.winter);
    w.moods.forEach((m, i) => s.wearing_moods.row(id, m.label, i, m.score));
    w.occasions.forEach((o, i) => s.wearing_occasions.row(id, o.label, i, o.score));
  };
  type ReviewPage = Paged & { reviews: { rating: number; text: string | null; date: string }[] };
  const reviews = (id: string): Promise<void> =>
    walk<ReviewPage>(`${fragPath(id)}/reviews`, (pg) => {
      for (const r of pg.reviews) s.reviews.row(id, r.date, r.rating, r.text);
    });
  const note = async (slug: string): Promise<void> => {
    const n = (
      await get<{ name: string; family: string; description: string }>(
        `/v1/notes/${encodeURIComponent(slug)}`,
      )
    ).body;
    s.notes.row(slug, n.name, n.family, n.description);
  };
  const chart = async (slug: string): Promise<void> => {
    const { body, date } = await get<{ title: string; entries: (Named & { rank: number })[] }>(
      `/v1/charts/${encodeURIComponent(slug)}`,
    );
    for (const e of body.entries) s.chart_entries.row(slug, date, e.rank, e.id, e.name, e.brand, e.score);
  };

  go(
    walk<Paged & { data: { id: string }[] }>('/v1/fragrances', (pg) => {
      for (const { id } of pg.data) [profile, similar, wearing, reviews].forEach((fn) => go(fn(id)));
    }),
  );
  go(
    walk<Paged & { data: { slug: string }[] }>('/v1/notes', (pg) => {
      for (const n of pg.data) go(note(n.slug)); // name and family come again with the profile
    }),
  );
  go(
    walk<Paged & { data: { slug: string; name: string }[] }>('/v1/accords', (pg) => {
      for (const a of pg.data) s.accords.row(a.slug, a.name);
    }),
  );
  go(
    get<{ charts: { slug: string; title: string }[] }>('/v1/charts').then(({ body }) => {
      for (const c of body.charts) s.charts.row(c.slug, c.title);
      for (const c of body.charts) go(chart(c.slug));
    }),
  );
  while (running.length > 0) await Promise.all(running.splice(0));
  const inFlight = meter.stop()!;
  for (const sink of Object.values(sinks)) sink.close();
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  conn.closeSync();
  instance.closeSync();
  if (failure !== undefined) throw failure;
  const rows = Object.values(sinks).reduce((n, sink) => n + sink.rows, 0);
  return { calls, wallS, cpuS: (cpu.user + cpu.system) / 1e6, rows, inFlight, sample: sample.paths };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fragrances = Number(process.env.BENCH_FRAGRANCES ?? 20_000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64);
  const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 0);
  const floorS = Number(process.env.BENCH_FLOOR_S ?? 10);
  const floorConcurrency = Number(process.env.BENCH_FLOOR_CONCURRENCY ?? concurrency);
  const key = 'bench-key';
  const bin = fileURLToPath(new URL('../bin/fragsync.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      bin,
      'sim',
      '--port',
      '0',
      '--fragrances',
      String(fragrances),
      '--keys',
      key,
      '--latency-ms',
      String(latencyMs),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  const url = first.replace(/^listening on /, '');
  const dir = await mkdtemp(join(tmpdir(), 'fragsync-ref-'));
  try {
    const simCpu0 = child.pid === undefined ? null : processCpuS(child.pid);
    const r = await runReference({ url, key, dbPath: join(dir, 'ref.duckdb'), concurrency });
    const simCpu1 = child.pid === undefined ? null : processCpuS(child.pid);
    const ledger = (await (await fetch(`${url}/_sim/ledger`)).json()) as { calls: number };
    const atService = (await (await fetch(`${url}/_sim/in-flight`)).json()) as { requestMs: number };
    console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}`);
    console.log(`catalogue: ${fragrances} fragrances; ${concurrency} requests in flight`);
    console.log(`reference: ${r.calls} calls (service ledger: ${ledger.calls}), ${r.rows} rows`);
    console.log(`wall: ${r.wallS.toFixed(1)} s = ${(r.calls / r.wallS).toFixed(0)} calls/s`);
    console.log(`CPU of the mirror's run: ${r.cpuS.toFixed(2)} s`);
    const atServiceMean = atService.requestMs / (r.inFlight.wallMs || 1);
    console.log(
      `at the service: mean ${atServiceMean.toFixed(2)} in flight, occupancy ${(atServiceMean / concurrency).toFixed(3)}`,
    );
    console.log(
      `in flight: mean ${r.inFlight.meanInFlight.toFixed(2)} of ${concurrency}, occupancy ${r.inFlight.occupancy.toFixed(3)}, under ${concurrency} for ${r.inFlight.underShare.toFixed(3)} of the time`,
    );
    const cpu = process.cpuUsage();
    console.log(
      `CPU of this process: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (the service runs in its own)`,
    );
    const simCpu = child.pid === undefined ? null : processCpuS(child.pid);
    if (simCpu !== null) console.log(`service CPU: ${simCpu.toFixed(1)} s`);
    // The service's CPU over the run alone (not its catalogue generation), per call.
    if (simCpu0 !== null && simCpu1 !== null)
      console.log(
        `service CPU over the run: ${(simCpu1 - simCpu0).toFixed(1)} s = ${(((simCpu1 - simCpu0) * 1000) / r.calls).toFixed(3)} ms/call`,
      );
    console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
    if (floorS > 0) {
      const floor = await runFloor({
        url,
        key,
        paths: r.sample,
        concurrency: floorConcurrency,
        seconds: floorS,
        serviceCpuS: () => (child.pid === undefined ? null : processCpuS(child.pid)),
      });
      console.log(floorLine(floor, floorConcurrency));
      if (latencyMs > 0) {
        const bound = (floorConcurrency * 1000) / latencyMs;
        console.log(
          `floor against ${floorConcurrency} in flight / ${latencyMs} ms = ${bound.toFixed(0)} calls/s: ${(floor.calls / floor.wallS / bound).toFixed(3)}`,
        );
      }
    }
  } finally {
    child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}
