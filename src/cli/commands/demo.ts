import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../config/index.ts';
import { oneLine } from '../../errors.ts';
import { runSync } from '../../sync/coordinator.ts';
import { createRuntime } from '../../sync/runtime.ts';
import { formatSummary } from '../../sync/summary-text.ts';
import { createLogger } from '../../util/logger.ts';
import { ensureWritableDir } from '../../util/writable-dir.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { readAll } from '../../domain/run.ts';
import { EXIT, exitCodeOfRun } from '../exit-codes.ts';
import { listenForInterrupt, reportStoppedAtOnce } from '../interrupt.ts';
import type { SyncTick } from '../../sync/types.ts';
import { outputWidth } from '../output/cell.ts';
import { printer } from '../output/formats.ts';
import { write } from '../output/write.ts';
import { progressReporter } from '../progress.ts';
import { PIPE_WIDTH } from './query.ts';
import type { CommandInput } from '../spec.ts';

const BIN = fileURLToPath(new URL('../../../bin/fragsync.js', import.meta.url));
const SIM_KEY = 'demo-key';

const SAMPLE_QUERY = `SELECT f.brand, count(*) AS fragrances, round(avg(f.score), 2) AS avg_score,
       count(DISTINCT f.perfumer) AS perfumers
FROM fragrances f
GROUP BY f.brand
ORDER BY fragrances DESC, f.brand
LIMIT 5`;

/**
 * `npm run demo`: starts the local Fragrance Data Service in a child process (the other
 * core), runs a full sync into ./data, exports Parquet and answers a sample analyst query.
 */
export async function run(input: CommandInput): Promise<number> {
  const fragrances = input.opts.fragrances as number;
  const dataDir = resolve(input.opts.data as string);
  try {
    ensureWritableDir(dataDir, '--data');
  } catch (err) {
    console.error(`fragsync demo: ${oneLine(err)}`);
    return EXIT.badInput;
  }

  // As in sync: a Ctrl-C or SIGTERM drains (the requests in flight are answered, everything
  // fetched is loaded) and prints what was done, and then the local service is stopped. A
  // second one says what the run spent and marks the writer lock, so the next sync records the
  // run interrupted; the local service is told to stop (the demo ends before it could wait).
  const seen: { tick: SyncTick | null; sim: SimChild | null } = { tick: null, sim: null };
  const interrupt = listenForInterrupt(
    {
      first:
        'fragsync demo: stopping: the requests in flight finish and are loaded (a second Ctrl-C or SIGTERM stops at once)',
      second: 'fragsync demo: stopped at once; everything fetched so far is kept and the next sync continues',
    },
    (sig) => {
      seen.sim?.kill();
      reportStoppedAtOnce('demo', sig, seen.tick);
    },
  );
  const sim = await startSimChild(fragrances);
  seen.sim = sim;
  try {
    if (interrupt.signal.aborted) return EXIT.interrupted;
    console.log(`local Fragrance Data Service: ${sim.url} (${fragrances} fragrances)`);
    const config = loadConfig({
      flags: { 'base-url': sim.url, db: join(dataDir, 'fragsync.duckdb'), redis: undefined },
      env: { FRAGSYNC_API_KEY: SIM_KEY, FRAGSYNC_PARQUET_DIR: join(dataDir, 'parquet') },
    });
    const log = createLogger('warn');
    const runtime = await createRuntime(config, log);
    const progress = progressReporter(process.stderr, 2000);
    let summary;
    try {
      summary = await runSync({
        config,
        log,
        governor: runtime.governor,
        makeDriver: runtime.makeDriver,
        onTick: (t) => {
          seen.tick = t;
          progress.tick(t);
        },
        interrupt: interrupt.signal,
      });
    } finally {
      progress.done();
      await runtime.close();
    }
    console.log(formatSummary(summary));
    // One that quarantined records still shows its warehouse, and ends with its 8.
    if (!readAll(summary.status)) return exitCodeOfRun(summary);
    console.log(`\nwarehouse: ${config.dbPath}\nparquet:   ${join(dataDir, 'parquet')}/<table>.parquet`);
    const wh = await Warehouse.open(config.dbPath, { readOnly: true });
    try {
      console.log(
        `\nA sample analyst query (fragsync query "...", or any DuckDB client):\n\n${SAMPLE_QUERY}\n`,
      );
      const out = printer('table', {
        write,
        maxRows: null,
        width: outputWidth(undefined, process.stdout, process.env, PIPE_WIDTH),
      });
      await wh.streamQuery(SAMPLE_QUERY, out);
      await out.end();
    } finally {
      await wh.close();
    }
    return exitCodeOfRun(summary);
  } catch (err) {
    console.error(`fragsync demo: ${oneLine(err)}`);
    return EXIT.unexpected;
  } finally {
    await sim.stop();
    interrupt.dispose();
  }
}

/** The local service in its child process: `stop` waits for it to end, `kill` only asks. */
interface SimChild {
  url: string;
  stop(): Promise<void>;
  kill(): void;
}

/**
 * In a process group of its own (`detached`): a terminal's Ctrl-C goes to the whole foreground
 * group, and the service, killed by it, refused the calls the drain still had to send
 * (hundreds of ECONNREFUSED retries, calls ending with no answer). The demo stops it after
 * the drain. So that it never outlives the demo (SIGKILLed, say), it ends when the IPC channel
 * to the demo closes (commands/sim.ts).
 */
async function startSimChild(fragrances: number): Promise<SimChild> {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'sim', '--port', '0', '--fragrances', String(fragrances), '--keys', SIM_KEY],
    { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], detached: true },
  );
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error('the local service did not start within 60 s')), 60_000);
    child.once('exit', (code) => rej(new Error(`the local service exited with code ${code}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (m?.[1]) res(m[1]);
      else rej(new Error(`unexpected first line from the local service: ${line}`));
    });
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
    kill: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}
