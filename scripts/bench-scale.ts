/**
 * Scale benchmark (`npm run bench:scale`): full syncs of catalogues of BENCH_SIZES fragrances
 * (default 20,000 and 120,000), each with the service answering at once and after
 * BENCH_LATENCIES ms (default 0 and 20: a remote service). The service runs in a process of
 * its own and the sync in another (scripts/bench-scale-sync.ts, started with npm run
 * fragsync's Node flags), so the figures are the sync process's alone: wall time, calls/s,
 * peak RSS, CPU seconds (all its threads), CPU ms per call, cost ratio.
 *
 * In the same run, before each sync: the minimal hand-written mirror of
 * scripts/bench-reference.ts (its own process, its own service, same catalogue and latency,
 * as many requests in flight as fragsync's default). It is the yardstick for CPU per call
 * and for how well latency is hidden. BENCH_REFERENCE=0 skips it. After it, against its service,
 * the floor (scripts/bench-floor.ts: a client that only reads the answers, BENCH_FLOOR_S
 * seconds, default 10, 0 = none): the calls/s this machine leaves to any client, printed beside
 * the latency target as context, not in its place.
 *
 * Every figure is printed beside its target (issue 16), and how well latency was hidden in a
 * way the machine's load changes less than calls/s: requests in flight against
 * http.concurrency, and why slots were idle (src/api/occupancy.ts). BENCH_RSS_TRACE=1 also
 * prints the sync process's RSS every second; BENCH_RSS_PEAKS_MS=20 each new high, sampled
 * every 20 ms (a short spike falls between 1 s samples); BENCH_LOG_LEVEL=warn the sync's own
 * log on stderr. REDIS_URL set: the sync runs on the BullMQ driver (its config reads the
 * environment). BENCH_CONFIG: a config file over the defaults for
 * the measured sync (a setting's effect, e.g. queue.concurrency).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, fetch as undiciFetch } from 'undici';
import { fileURLToPath } from 'node:url';
import { IDLE_REASONS, type OccupancyFigures } from '../src/api/occupancy.ts';
import { loadConfig } from '../src/config/index.ts';
import { formatRatio } from '../src/plan/cost-model.ts';
import type { TableDigest } from '../src/util/row-digest.ts';
import { warehouseDigest } from '../test/helpers/ground-truth.ts';
import { builtFile } from '../bin/built.mjs';
import { processCpuS } from './proc-cpu.ts';

const SIZES = (process.env.BENCH_SIZES ?? '20000,120000').split(',').map(Number);
const LATENCIES = (process.env.BENCH_LATENCIES ?? '0,20').split(',').map(Number);
const REFERENCE = process.env.BENCH_REFERENCE !== '0';
const RSS_TRACE = process.env.BENCH_RSS_TRACE === '1';
// BENCH_RSS_PEAKS_MS=20: RSS sampled that often, a line at each new high (a spike between 1 s samples).
const RSS_PEAKS_MS = Number(process.env.BENCH_RSS_PEAKS_MS ?? 0);
const KEY = 'bench-key';
const PATIENT = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const BIN = fileURLToPath(new URL('../bin/fragsync.js', import.meta.url));
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
/**
 * The Node flags and the environment (`NAME=value` before `node`) `npm run fragsync` starts
 * the CLI with, read from package.json so the two never differ.
 */
const FRAGSYNC_SCRIPT =
  (JSON.parse(readFileSync(here('../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    .fragsync ?? '';
const SYNC_NODE_FLAGS = FRAGSYNC_SCRIPT.split(/\s+/).filter((w) => w.startsWith('--'));
const SYNC_ENV: Record<string, string> = Object.fromEntries(
  (/^((?:\w+=\S*\s+)*)node\b/.exec(FRAGSYNC_SCRIPT)?.[1] ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
);
/**
 * The measured process runs what bin/fragsync.js runs: the build (dist/, made by `npm run
 * bench:scale` before it starts) when it is current, else the TypeScript through tsx.
 */
const BUILT_SYNC = builtFile('bench-scale-sync.js');
const SYNC_SCRIPT = BUILT_SYNC ? [BUILT_SYNC] : ['--import', 'tsx', here('./bench-scale-sync.ts')];
const CONCURRENCY = loadConfig({ flags: {}, env: {} }).http.concurrency;

const TARGET = { peakRssMiB: 512, rssGrowth: 1.15, cpuPerCallRatio: 1.3, latencyEfficiency: 0.9 };

interface SyncFigures {
  status: string;
  calls: number;
  cents: number;
  minimumCents: number;
  costRatio: number | null;
  concurrency: number;
  wallS: number;
  cpuS: number;
  peakRssMiB: number;
  /** CPU seconds of the main thread alone (requests, jobs, journal): the rest is the loader's, DuckDB's, V8's. */
  fetchingThreadCpuS: number | null;
  ledgerCalls: number;
  /** The time the sync's requests spent at the service, summed (GET /_sim/in-flight). */
  serviceRequestMs: number;
  /** Contract tables whose rows differ from the service's truth (row count and digest). */
  inexact: string[];
  /** Requests in flight over the fetch stage (src/api/occupancy.ts). */
  inFlight: OccupancyFigures | null;
  /** Each step of the run and its milliseconds (src/sync/stage-marks.ts). */
  stages: { step: string; ms: number }[];
  /** CPU seconds of the simulator's process while the sync ran (its catalogue generation before excluded), or null without /proc. */
  serviceCpuS: number | null;
}
interface RefFigures {
  calls: number;
  wallS: number;
  cpuS: number;
  peakRssMiB: number;
  occupancy: number;
  underShare: number;
  serviceOccupancy: number;
  serviceCpuS: number | null;
  /** bench-floor.ts's figures against the reference's service, or null when it did not run. */
  floor: { rate: number; meanMs: number; cpuMsPerCall: number } | null;
}

async function startSim(
  fragrances: number,
  latencyMs: number,
): Promise<{ url: string; cpuS(): number | null; stop(): void }> {
  const args = ['sim', '--fragrances', String(fragrances), '--keys', KEY, '--latency-ms', String(latencyMs)];
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return {
    url: first.replace(/^listening on /, ''),
    cpuS: () => (child.pid === undefined ? null : processCpuS(child.pid)),
    stop: () => child.kill('SIGTERM'),
  };
}

/** Resident set of a live process in MiB (VmRSS), or null once it is gone. */
function rssMiB(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function runFragsync(size: number, latencyMs: number): Promise<SyncFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'fragsync-scale-'));
  const sim = await startSim(size, latencyMs);
  try {
    const simCpu0 = sim.cpuS();
    const child = spawn(
      process.execPath,
      [...SYNC_NODE_FLAGS, ...SYNC_SCRIPT, sim.url, join(dir, 'bench.duckdb')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          ...SYNC_ENV,
          FRAGSYNC_API_KEY: KEY,
          // With REDIS_URL (BullMQ): queues and spools of our own, beside whoever else uses that Redis.
          FRAGSYNC_QUEUE_PREFIX: `bench-scale-${process.pid}-${size}-${latencyMs}`,
          FRAGSYNC_SPOOL_DIR: join(dir, 'spool'),
        },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const t0 = Date.now();
    const trace = RSS_TRACE
      ? setInterval(() => {
          const rss = child.pid === undefined ? null : rssMiB(child.pid);
          if (rss !== null)
            console.log(`  t=${((Date.now() - t0) / 1000).toFixed(0)} s RSS ${rss.toFixed(0)} MiB`);
        }, 1000)
      : null;
    let high = 0;
    const peaks =
      RSS_PEAKS_MS > 0
        ? setInterval(() => {
            const rss = child.pid === undefined ? null : rssMiB(child.pid);
            if (rss === null || rss < high + 2) return;
            high = rss;
            console.log(`  t=${((Date.now() - t0) / 1000).toFixed(2)} s new high RSS ${rss.toFixed(0)} MiB`);
          }, RSS_PEAKS_MS)
        : null;
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (trace) clearInterval(trace);
    if (peaks) clearInterval(peaks);
    const simCpu1 = sim.cpuS();
    const last = out.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`sync failed (exit ${code}):\n${out}`);
    // The sync's own figures first: a check that fails after a long run must not lose them.
    console.log(`  sync process: ${last}`);
    const ledger = (await (await fetch(`${sim.url}/_sim/ledger`)).json()) as { calls: number };
    const atService = (await (await fetch(`${sim.url}/_sim/in-flight`)).json()) as { requestMs: number };
    const inexact = await inexactTables(sim.url, join(dir, 'bench.duckdb')).catch((err: unknown) => [
      `the check itself failed (${err instanceof Error ? err.message : String(err)})`,
    ]);
    return {
      ...(JSON.parse(last) as Omit<
        SyncFigures,
        'ledgerCalls' | 'serviceRequestMs' | 'inexact' | 'serviceCpuS'
      >),
      ledgerCalls: ledger.calls,
      serviceRequestMs: atService.requestMs,
      inexact,
      serviceCpuS: simCpu0 === null || simCpu1 === null ? null : simCpu1 - simCpu0,
    };
  } finally {
    sim.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The contract tables whose row count or digest differs from the simulator's truth. */
async function inexactTables(url: string, dbPath: string): Promise<string[]> {
  // No headers timeout: at 120k the service digests 7 million rows before it answers, which
  // took longer than fetch's default 300 s on a loaded machine (session 7).
  const get = async <T>(op: string): Promise<T> =>
    (await (await undiciFetch(`${url}/_sim/${op}`, { dispatcher: PATIENT })).json()) as T;
  const truth = await get<Record<string, TableDigest>>('truth-digest');
  const { serviceDate } = await get<{ serviceDate: string }>('clock');
  const ours = await warehouseDigest(dbPath, serviceDate);
  return Object.keys(truth).filter((t) => JSON.stringify(truth[t]) !== JSON.stringify(ours[t]));
}

async function runReference(fragrances: number, latencyMs: number): Promise<RefFigures> {
  const child = spawn(process.execPath, ['--import', 'tsx', here('./bench-reference.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      BENCH_FRAGRANCES: String(fragrances),
      BENCH_CONCURRENCY: String(CONCURRENCY),
      BENCH_LATENCY_MS: String(latencyMs),
    },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const num = (re: RegExp): number => {
    const m = re.exec(out);
    if (!m) throw new Error(`reference mirror failed (exit ${code}):\n${out}`);
    return Number(m[1]);
  };
  return {
    calls: num(/^reference: (\d+) calls/m),
    wallS: num(/^wall: ([\d.]+) s/m),
    cpuS: num(/^CPU of the mirror's run: ([\d.]+) s/m),
    peakRssMiB: num(/^peak RSS: ([\d.]+) MiB/m),
    occupancy: num(/^in flight: .*occupancy ([\d.]+)/m),
    underShare: num(/^in flight: .* for ([\d.]+) of the time/m),
    serviceOccupancy: num(/^at the service: .*occupancy ([\d.]+)/m),
    serviceCpuS: /^service CPU over the run: ([\d.]+) s/m.exec(out)
      ? num(/^service CPU over the run: ([\d.]+) s/m)
      : null,
    floor: /^floor: /m.exec(out)
      ? {
          rate: num(/^floor: .* = ([\d.]+) calls\/s/m),
          meanMs: num(/^floor: .*mean seen ([\d.]+) ms/m),
          cpuMsPerCall: num(/^floor: .*client CPU ([\d.]+) ms\/call/m),
        }
      : null,
  };
}

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const ok = (pass: boolean): string => (pass ? 'met' : 'NOT met');
const msPerCall = (cpuS: number, calls: number): number => (cpuS * 1000) / calls;

console.log(
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
);
console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  `sync: default config (${CONCURRENCY} requests in flight), ${process.env.REDIS_URL ? 'BullMQ driver (REDIS_URL)' : 'in-process driver'}, node flags: ${SYNC_NODE_FLAGS.join(' ') || 'none'}${Object.entries(
    SYNC_ENV,
  )
    .map(([k, v]) => `, ${k}=${v}`)
    .join('')}, ${BUILT_SYNC ? 'built code (dist/)' : 'TypeScript through tsx (no current build)'}`,
);

const peaks = new Map<string, number>();
for (const latencyMs of LATENCIES) {
  for (const size of SIZES) {
    console.log(`\n== ${n0(size)} fragrances, service latency ${latencyMs} ms`);
    const ref = REFERENCE ? await runReference(size, latencyMs) : null;
    const f = await runFragsync(size, latencyMs);
    peaks.set(`${latencyMs}/${size}`, f.peakRssMiB);
    const rate = f.calls / f.wallS;
    const cpuMs = msPerCall(f.cpuS, f.calls);
    console.log(
      `fragsync: ${n0(f.calls)} calls (service ledger ${n0(f.ledgerCalls)}) in ${f.wallS.toFixed(1)} s = ${n0(rate)} calls/s, status ${f.status}`,
    );
    console.log(
      `  mirror against the service's truth (rows and digest of every contract table): ${f.inexact.length === 0 ? 'exact' : `NOT exact: ${f.inexact.join(', ')}`}`,
    );
    console.log(
      `  peak RSS ${n0(f.peakRssMiB)} MiB                target <= ${TARGET.peakRssMiB} MiB: ${ok(f.peakRssMiB <= TARGET.peakRssMiB)}`,
    );
    if (ref) {
      const refMs = msPerCall(ref.cpuS, ref.calls);
      const ratio = cpuMs / refMs;
      console.log(
        `  CPU ${f.cpuS.toFixed(1)} s = ${cpuMs.toFixed(3)} ms/call   target <= ${TARGET.cpuPerCallRatio} x reference (${refMs.toFixed(3)} ms/call): ${ratio.toFixed(2)} x, ${ok(ratio <= TARGET.cpuPerCallRatio)}`,
      );
    } else console.log(`  CPU ${f.cpuS.toFixed(1)} s = ${cpuMs.toFixed(3)} ms/call (no reference this run)`);
    if (f.fetchingThreadCpuS !== null)
      console.log(
        `    of which the fetching thread ${f.fetchingThreadCpuS.toFixed(1)} s, the loader thread, DuckDB and GC helpers ${(f.cpuS - f.fetchingThreadCpuS).toFixed(1)} s`,
      );
    console.log(
      `  cost ratio ${f.costRatio === null ? '-' : formatRatio(f.costRatio)}                 target 1.000: ${ok(f.costRatio === 1 && f.calls === f.ledgerCalls)}`,
    );
    if (f.serviceCpuS !== null)
      console.log(
        `  the simulator's CPU over the sync ${f.serviceCpuS.toFixed(1)} s = ${msPerCall(f.serviceCpuS, f.calls).toFixed(3)} ms/call (a remote service's, yet here it shares the cores)` +
          (ref?.serviceCpuS != null
            ? ` (reference run: ${msPerCall(ref.serviceCpuS, ref.calls).toFixed(3)} ms/call)`
            : ''),
      );
    printStages(f.stages, f.wallS);
    if (f.inFlight) printOccupancy(f.inFlight, f, rate, latencyMs, ref);
    if (latencyMs > 0) {
      const bound = (f.concurrency * 1000) / latencyMs;
      const eff = rate / bound;
      console.log(
        `  ${n0(rate)} calls/s = ${eff.toFixed(2)} of ${f.concurrency} in flight / ${latencyMs} ms = ${n0(bound)} calls/s   target >= ${TARGET.latencyEfficiency}: ${ok(eff >= TARGET.latencyEfficiency)}` +
          (ref ? ` (reference: ${(ref.calls / ref.wallS / bound).toFixed(2)})` : ''),
      );
    }
    if (ref?.floor) printFloor(ref.floor, rate, ref.calls / ref.wallS, latencyMs);
    if (ref)
      console.log(
        `reference mirror: ${n0(ref.calls)} calls in ${ref.wallS.toFixed(1)} s = ${n0(ref.calls / ref.wallS)} calls/s, CPU ${ref.cpuS.toFixed(1)} s, peak RSS ${n0(ref.peakRssMiB)} MiB`,
      );
  }
}

/**
 * Context for the latency target: what a client that does nothing with the answers reached
 * against the same service (the reference's), and the sync's calls/s as a fraction of it.
 */
function printFloor(
  floor: NonNullable<RefFigures['floor']>,
  rate: number,
  refRate: number,
  latencyMs: number,
): void {
  const bound = latencyMs > 0 ? (CONCURRENCY * 1000) / latencyMs : null;
  console.log(
    `    floor (${CONCURRENCY} in flight, bodies read and discarded): ${n0(floor.rate)} calls/s` +
      (bound ? ` = ${(floor.rate / bound).toFixed(2)} of ${n0(bound)}` : '') +
      `, a request seen to take ${floor.meanMs.toFixed(1)} ms, client CPU ${floor.cpuMsPerCall.toFixed(3)} ms/call;` +
      ` fragsync ${(rate / floor.rate).toFixed(2)} of the floor (reference ${(refRate / floor.rate).toFixed(2)})`,
  );
}

/** The run outside the fetch, step by step: the whole-run latency target pays for it too. */
function printStages(stages: SyncFigures['stages'], wallS: number): void {
  const outside = stages.filter((s) => s.step !== 'fetch');
  const sum = outside.reduce((t, s) => t + s.ms, 0);
  console.log(
    `  outside the fetch ${(sum / 1000).toFixed(2)} s (${((sum / 1000 / wallS) * 100).toFixed(1)}% of the run): ` +
      outside.map((s) => `${s.step} ${(s.ms / 1000).toFixed(2)}`).join(', '),
  );
}

/**
 * Latency hiding as the machine's speed does not change it much: requests on the wire, mean
 * over the fetch stage and over the whole run, against http.concurrency, beside the reference
 * mirror's; why slots were idle; and the time a request took as seen from here (mean in flight
 * over calls/s: the service's latency plus the CPU time an answer waited for on a busy machine).
 * calls/s = occupancy over the run x concurrency / that time.
 */
function printOccupancy(
  o: OccupancyFigures,
  f: SyncFigures,
  rate: number,
  latencyMs: number,
  ref: RefFigures | null,
): void {
  const runS = f.wallS;
  const runMean = (o.meanInFlight * o.wallMs) / 1000 / runS;
  // Seen from the service: from a request's arrival to its answer written. An answer the busy
  // sync has not read yet is in flight for the sync, not for the service: the truth lies
  // between the two figures.
  const service = f.serviceRequestMs / o.wallMs / o.concurrency;
  console.log(
    `  in flight: mean ${o.meanInFlight.toFixed(1)} of ${o.concurrency} over the fetch (${((o.wallMs / 1000 / runS) * 100).toFixed(0)}% of the run) = occupancy ${o.occupancy.toFixed(3)}, over the run ${(runMean / o.concurrency).toFixed(3)}` +
      (ref ? `   (reference: ${ref.occupancy.toFixed(3)})` : ''),
  );
  const idle = IDLE_REASONS.filter((r) => o.idle[r] >= 0.0005)
    .map((r) => `${r} ${o.idle[r].toFixed(3)}`)
    .join(', ');
  console.log(
    `    at the service: occupancy ${service.toFixed(3)} over the fetch` +
      (ref ? ` (reference ${ref.serviceOccupancy.toFixed(3)})` : ''),
  );
  console.log(
    `    under ${o.concurrency} in flight ${(o.underShare * 100).toFixed(0)}% of the fetch` +
      (ref ? ` (reference ${(ref.underShare * 100).toFixed(0)}%)` : '') +
      `; idle slot-time: ${idle || 'none'}`,
  );
  if (rate > 0)
    console.log(
      `    a request took ${((runMean / rate) * 1000).toFixed(1)} ms as seen from the sync (service latency ${latencyMs} ms; the rest is waiting for CPU)`,
    );
}

for (const latencyMs of LATENCIES) {
  const small = peaks.get(`${latencyMs}/${Math.min(...SIZES)}`);
  const large = peaks.get(`${latencyMs}/${Math.max(...SIZES)}`);
  if (SIZES.length > 1 && small && large) {
    const growth = large / small;
    console.log(
      `\npeak RSS ${n0(Math.max(...SIZES))} / ${n0(Math.min(...SIZES))} (latency ${latencyMs} ms): ${n0(large)} / ${n0(small)} MiB = ${growth.toFixed(2)}   target <= ${TARGET.rssGrowth}: ${ok(growth <= TARGET.rssGrowth)}`,
    );
  }
}
console.log(
  `load average at end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
