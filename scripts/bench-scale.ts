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
 * and for how well latency is hidden. BENCH_REFERENCE=0 skips it.
 *
 * Every figure is printed beside its target (issue 16). BENCH_RSS_TRACE=1 also prints the
 * sync process's RSS every second.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, fetch as undiciFetch } from 'undici';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.ts';
import type { TableDigest } from '../src/util/row-digest.ts';
import { warehouseDigest } from '../test/helpers/ground-truth.ts';

const SIZES = (process.env.BENCH_SIZES ?? '20000,120000').split(',').map(Number);
const LATENCIES = (process.env.BENCH_LATENCIES ?? '0,20').split(',').map(Number);
const REFERENCE = process.env.BENCH_REFERENCE !== '0';
const RSS_TRACE = process.env.BENCH_RSS_TRACE === '1';
const KEY = 'bench-key';
const PATIENT = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const BIN = fileURLToPath(new URL('../bin/fragsync.js', import.meta.url));
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
/** The Node flags `npm run fragsync` starts the CLI with, read from package.json so the two never differ. */
const SYNC_NODE_FLAGS = nodeFlagsOf(
  (JSON.parse(readFileSync(here('../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    .fragsync ?? '',
);
function nodeFlagsOf(script: string): string[] {
  return script.split(/\s+/).filter((w) => w.startsWith('--'));
}
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
  /** Contract tables whose rows differ from the service's truth (row count and digest). */
  inexact: string[];
}
interface RefFigures {
  calls: number;
  wallS: number;
  cpuS: number;
  peakRssMiB: number;
}

async function startSim(fragrances: number, latencyMs: number): Promise<{ url: string; stop(): void }> {
  const args = ['sim', '--fragrances', String(fragrances), '--keys', KEY, '--latency-ms', String(latencyMs)];
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return { url: first.replace(/^listening on /, ''), stop: () => child.kill('SIGTERM') };
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

async function runFragsync(fragrances: number, latencyMs: number): Promise<SyncFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'fragsync-scale-'));
  const sim = await startSim(fragrances, latencyMs);
  try {
    const child = spawn(
      process.execPath,
      [
        ...SYNC_NODE_FLAGS,
        '--import',
        'tsx',
        here('./bench-scale-sync.ts'),
        sim.url,
        join(dir, 'bench.duckdb'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FRAGSYNC_API_KEY: KEY } },
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
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (trace) clearInterval(trace);
    const last = out.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`sync failed (exit ${code}):\n${out}`);
    // The sync's own figures first: a check that fails after a long run must not lose them.
    console.log(`  sync process: ${last}`);
    const ledger = (await (await fetch(`${sim.url}/_sim/ledger`)).json()) as { calls: number };
    const inexact = await inexactTables(sim.url, join(dir, 'bench.duckdb')).catch((err: unknown) => [
      `the check itself failed (${err instanceof Error ? err.message : String(err)})`,
    ]);
    return {
      ...(JSON.parse(last) as Omit<SyncFigures, 'ledgerCalls' | 'inexact'>),
      ledgerCalls: ledger.calls,
      inexact,
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
  `sync: default config (${CONCURRENCY} requests in flight), node flags: ${SYNC_NODE_FLAGS.join(' ') || 'none'}`,
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
      `  cost ratio ${f.costRatio?.toFixed(3) ?? '-'}                 target 1.000: ${ok(f.costRatio !== null && f.costRatio.toFixed(3) === '1.000' && f.calls === f.ledgerCalls)}`,
    );
    if (latencyMs > 0) {
      const bound = (f.concurrency * 1000) / latencyMs;
      const eff = rate / bound;
      console.log(
        `  ${n0(rate)} calls/s = ${eff.toFixed(2)} of ${f.concurrency} in flight / ${latencyMs} ms = ${n0(bound)} calls/s   target >= ${TARGET.latencyEfficiency}: ${ok(eff >= TARGET.latencyEfficiency)}` +
          (ref ? ` (reference: ${(ref.calls / ref.wallS / bound).toFixed(2)})` : ''),
      );
    }
    if (ref)
      console.log(
        `reference mirror: ${n0(ref.calls)} calls in ${ref.wallS.toFixed(1)} s = ${n0(ref.calls / ref.wallS)} calls/s, CPU ${ref.cpuS.toFixed(1)} s, peak RSS ${n0(ref.peakRssMiB)} MiB`,
      );
  }
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
