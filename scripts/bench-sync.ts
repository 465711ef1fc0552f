/**
 * Sync benchmark: a full in-process sync of a local service with BENCH_FRAGRANCES (default
 * 20k) fragrances, the service running in its own process (the other core). In the same run,
 * the service's raw request ceiling is measured first: a keep-alive load loop of
 * BENCH_INFLIGHT requests in flight against one endpoint for BENCH_CEILING_MS. Prints calls/s
 * of the sync beside that ceiling, wall time, cost ratio and peak memory (RSS).
 *
 * Also in the same run, first (BENCH_REFERENCE=0 skips it): the minimal hand-written mirror
 * of scripts/bench-reference.ts, in a child process with a service of its own, over the same
 * catalogue. Its wall time is the figure fragsync is measured against.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Pool } from 'undici';
import { loadConfig } from '../src/config/index.ts';
import { formatRatio } from '../src/plan/cost-model.ts';
import { runSync } from '../src/sync/coordinator.ts';
import { createRuntime } from '../src/sync/runtime.ts';
import { processCpuS } from './proc-cpu.ts';

const FRAGRANCES = Number(process.env.BENCH_FRAGRANCES ?? 20_000);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
const CEILING_MS = Number(process.env.BENCH_CEILING_MS ?? 5_000);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '64';
const BIN = fileURLToPath(new URL('../bin/fragsync.js', import.meta.url));
const KEY = 'bench-key';

async function startSim(): Promise<{ url: string; cpuS(): number | null; stop(): void }> {
  const child = spawn(
    process.execPath,
    [BIN, 'sim', '--port', '0', '--fragrances', String(FRAGRANCES), '--keys', KEY],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  const url = first.replace(/^listening on /, '');
  return {
    url,
    cpuS: () => (child.pid === undefined ? null : processCpuS(child.pid)),
    stop: () => child.kill('SIGTERM'),
  };
}

/** Requests/s the service answers on one cheap endpoint with INFLIGHT keep-alive requests in flight. */
async function ceiling(url: string): Promise<number> {
  const pool = new Pool(url, { connections: 16, pipelining: 1 });
  const ids = (await (
    await fetch(`${url}/v1/fragrances?page=1&limit=50`, { headers: { authorization: `Bearer ${KEY}` } })
  ).json()) as {
    data: { id: string }[];
  };
  const paths = ids.data.map((f) => `/v1/fragrances/${f.id.split('/').map(encodeURIComponent).join('/')}`);
  let done = 0;
  const end = Date.now() + CEILING_MS;
  const loop = async (i: number) => {
    while (Date.now() < end) {
      const res = await pool.request({
        path: paths[(done + i) % paths.length]!,
        method: 'GET',
        headers: { authorization: `Bearer ${KEY}` },
      });
      await res.body.json();
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: INFLIGHT }, (_, i) => loop(i)));
  const rate = done / ((performance.now() - t0) / 1000);
  await pool.close();
  return rate;
}

/** Runs the reference mirror in its own process; returns its wall time and calls. */
async function reference(): Promise<{ wallS: number; calls: number; cpuRatio: number | null } | null> {
  if (process.env.BENCH_REFERENCE === '0') return null;
  const script = fileURLToPath(new URL('./bench-reference.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_FRAGRANCES: String(FRAGRANCES), BENCH_CONCURRENCY: CONCURRENCY },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wall = /^wall: ([\d.]+) s/m.exec(out);
  const calls = /^reference: (\d+) calls/m.exec(out);
  if (code !== 0 || !wall || !calls) throw new Error(`reference mirror failed (exit ${code}):\n${out}`);
  const cpu = /^CPU of this process: ([\d.]+) s/m.exec(out);
  const simCpu = /^service CPU: ([\d.]+) s/m.exec(out);
  const cpuRatio = cpu && simCpu ? Number(cpu[1]) / Number(simCpu[1]) : null;
  return { wallS: Number(wall[1]), calls: Number(calls[1]), cpuRatio };
}

const ref = await reference();
const dir = await mkdtemp(join(tmpdir(), 'fragsync-bench-'));
const sim = await startSim();
try {
  const raw = await ceiling(sim.url);
  const config = loadConfig({
    flags: { 'base-url': sim.url, db: join(dir, 'bench.duckdb'), concurrency: CONCURRENCY },
    env: { FRAGSYNC_API_KEY: KEY },
  });
  const log = pino({ level: 'silent' });
  const runtime = await createRuntime(config, log);
  const simCpu0 = sim.cpuS();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await runSync({ config, log, governor: runtime.governor, makeDriver: runtime.makeDriver });
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const syncCpuS = (cpu.user + cpu.system) / 1e6;
  const simCpuS = simCpu0 === null ? null : (sim.cpuS() ?? 0) - simCpu0;
  await runtime.close();
  const rate = summary.calls / wallS;
  const rssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}`);
  console.log(`catalogue: ${FRAGRANCES} fragrances; sync status ${summary.status}`);
  console.log(`service raw ceiling (one endpoint, ${INFLIGHT} in flight): ${raw.toFixed(0)} requests/s`);
  console.log(
    `sync: ${summary.calls} calls in ${wallS.toFixed(1)} s = ${rate.toFixed(0)} calls/s (${((rate / raw) * 100).toFixed(0)}% of the ceiling)`,
  );
  console.log(
    `cost: ${summary.cents} cents, minimum ${summary.minimum.cents}, ratio ${summary.costRatio === null ? '-' : formatRatio(summary.costRatio)}`,
  );
  console.log(`peak RSS of the sync process: ${rssMiB.toFixed(0)} MiB`);
  if (simCpuS !== null)
    console.log(
      `CPU: sync ${syncCpuS.toFixed(1)} s (all threads), its service ${simCpuS.toFixed(1)} s: ratio ${(syncCpuS / simCpuS).toFixed(2)}` +
        (ref?.cpuRatio ? ` (reference mirror: ${ref.cpuRatio.toFixed(2)})` : ''),
    );
  if (ref)
    console.log(
      `reference minimal mirror (same catalogue, same machine, this run): ${ref.calls} calls in ${ref.wallS.toFixed(1)} s = ${(ref.calls / ref.wallS).toFixed(0)} calls/s; fragsync/reference wall time ${(wallS / ref.wallS).toFixed(2)}`,
    );
} finally {
  sim.stop();
  await rm(dir, { recursive: true, force: true });
}
