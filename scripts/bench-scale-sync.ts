/**
 * One full sync in a process of its own, for `npm run bench:scale`: what `fragsync sync` does
 * (the config as the CLI reads it, the runtime, runSync) against the service at argv[2] into
 * the warehouse file argv[3], with FRAGSYNC_API_KEY from the environment. Its last stdout
 * line is one JSON document: the summary's figures (requests in flight among them), the wall
 * time and CPU seconds of the run (all threads of this process, from where `fragsync sync` has
 * read its config, the sync's modules and runtime included, to the run's end), the process's peak RSS and how long each step of the run took (stage-marks.ts). The parent started it with the Node flags it measures (npm run fragsync's).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { loadConfig } from '../src/config/index.ts';

const [url, db] = process.argv.slice(2);
if (!url || !db) throw new Error('usage: bench-scale-sync.ts <base-url> <db>');
// BENCH_CONFIG: a config file over the defaults (e.g. {"queue": {"concurrency": 128}}), to measure a setting.
const config = loadConfig({
  flags: { 'base-url': url, db, ...(process.env.BENCH_CONFIG ? { config: process.env.BENCH_CONFIG } : {}) },
  env: process.env,
});
// BENCH_LOG_LEVEL=warn: the sync's log on stderr (e.g. a DuckDB memory limit raised mid-run).
const log = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }, pino.destination(2));
// From here on as `fragsync sync` once its config is read (src/cli/commands/sync.ts): the sync's
// modules loaded, the runtime made, the run. The figures count from here, so what the command
// does before the run (and whatever of the run it starts meanwhile) is in them.
const cpu0 = process.cpuUsage();
const main0 = mainThreadCpuS();
const t0 = performance.now();
const { openWarehouse } = await import('../src/sync/open-warehouse.ts');
const opening = openWarehouse(config, log);
opening.catch(() => undefined);
const [{ runSync }, { createRuntime }, { stageTimes }] = await Promise.all([
  import('../src/sync/coordinator.ts'),
  import('../src/sync/runtime.ts'),
  import('../src/sync/stage-marks.ts'),
]);
const runtime = await createRuntime(config, log);
const beforeRunMs = performance.now() - t0;
const summary = await runSync({
  config,
  log,
  governor: runtime.governor,
  makeDriver: runtime.makeDriver,
  opening,
});
const wallS = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const main1 = mainThreadCpuS();
await runtime.close();
console.log(
  JSON.stringify({
    status: summary.status,
    calls: summary.calls,
    cents: summary.cents,
    minimumCents: summary.minimum.cents,
    costRatio: summary.costRatio,
    concurrency: config.http.concurrency,
    wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    fetchingThreadCpuS: main0 === null || main1 === null ? null : main1 - main0,
    inFlight: summary.inFlight,
    stages: [{ step: 'before the run: modules, runtime', ms: beforeRunMs }, ...stageTimes()],
  }),
);

/** CPU seconds of this process's main thread (the fetching thread) so far, or null without /proc. */
function mainThreadCpuS(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
