import { readdirSync } from 'node:fs';
import { ConfigError, isFragsyncError, oneLine } from '../../errors.ts';
import { checkPaths } from '../../sync/paths.ts';
import { createLogger } from '../../util/logger.ts';
import { EXIT, exitCodeOfRun } from '../exit-codes.ts';
import { readAll } from '../../domain/run.ts';
import { listenForInterrupt, reportStoppedAtOnce } from '../interrupt.ts';
import { progressReporter } from '../progress.ts';
import type { Config } from '../../config/index.ts';
import type { SyncSummary } from '../../sync/summary.ts';
import { resetsAt } from '../../sync/summary-text.ts';
import type { SyncTick } from '../../sync/types.ts';
import { configOf, type CommandInput } from '../spec.ts';
import { summaryJson } from '../summary-json.ts';

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  try {
    // Before DuckDB, undici and BullMQ are loaded: an unusable path answers within a second.
    checkPaths(config);
  } catch (err) {
    console.error(`fragsync sync: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
    return EXIT.badInput;
  }
  // From here on a Ctrl-C drains: no job is taken, the requests in flight finish and are
  // loaded, the warehouse closes and the summary says what was done (exit 130).
  // The run's latest progress figures: all a second signal can say of its spend (below).
  const seen: { tick: SyncTick | null } = { tick: null };
  const interrupt = listenForInterrupt(
    {
      first:
        'fragsync sync: stopping: no new calls; the requests in flight finish and are loaded (a second Ctrl-C or SIGTERM stops at once)',
      second: 'fragsync sync: stopped at once; everything fetched so far is kept and the next sync continues',
    },
    (sig) => reportStoppedAtOnce('sync', sig, seen.tick),
  );
  try {
    return await syncCommand(input, config, interrupt.signal, seen);
  } finally {
    interrupt.dispose();
  }
}

async function syncCommand(
  input: CommandInput,
  config: Config,
  interrupt: AbortSignal,
  seen: { tick: SyncTick | null },
): Promise<number> {
  // On a terminal the progress line and the summary say what matters; retries stay quiet.
  const log = createLogger(process.stderr.isTTY && config.logLevel === 'info' ? 'error' : config.logLevel);
  // The warehouse first (the loader thread, DuckDB, the file, migrations: seconds), while this
  // thread loads the rest of the sync and connects to Redis. No request leaves before the
  // run has replayed the journal and seeded the day's spend (openRun awaits this).
  const { openWarehouse, abandonWarehouse } = await import('../../sync/open-warehouse.ts');
  const opening = openWarehouse(config, log);
  // Awaited by runSync or abandoned below; a failure is reported there, not as unhandled.
  opening.catch(() => undefined);
  const [{ runSync }, { createRuntime }, { formatSummary }] = await Promise.all([
    import('../../sync/coordinator.ts'),
    import('../../sync/runtime.ts'),
    import('../../sync/summary-text.ts'),
  ]);
  const json = input.opts.json === true;
  const progress = progressReporter();
  let runtime;
  try {
    runtime = await createRuntime(config, log);
  } catch (err) {
    await abandonWarehouse(opening);
    console.error(`fragsync sync: ${oneLine(err)}`);
    return EXIT.badInput;
  }
  try {
    if (interrupt.aborted) {
      await abandonWarehouse(opening); // the run never started
      return EXIT.interrupted;
    }
    const summary = await runSync({
      config,
      log,
      governor: runtime.governor,
      makeDriver: runtime.makeDriver,
      onTick: (t) => {
        seen.tick = t;
        progress.tick(t);
      },
      interrupt,
      opening,
    });
    progress.done();
    if (json) process.stdout.write(`${summaryJson(summary)}\n`);
    // Nothing was answered: the summary table would only be zeros.
    if (!json && !(summary.status === 'failed' && summary.calls === 0)) console.log(formatSummary(summary));
    // A completed run exported (sync/finish.ts): say where, and how many files (on stderr
    // beside the other notes, so --json's stdout stays one object).
    const parquet = config.export.parquetDir;
    if (parquet && readAll(summary.status))
      console.error(`fragsync sync: exported ${parquetFiles(parquet)} Parquet files to ${parquet}`);
    const quarantined = summary.quarantined.reduce((n, q) => n + q.count, 0);
    // Records received and not stored (a run's failed jobs are counted apart: its last line
    // says why they failed).
    if (quarantined > 0)
      console.error(
        `fragsync sync: ${quarantined === 1 ? '1 record' : `${quarantined} records`} quarantined (not stored): \`fragsync quarantine\` lists them`,
      );
    // A full run that completed a cycle whose earlier runs left records open: exit 8 all the same.
    const earlier = summary.earlierInCycle.records;
    if (earlier > 0)
      console.error(
        `fragsync sync: earlier runs of this cycle left ${earlier === 1 ? '1 record' : `${earlier} records`} in quarantine (not stored): \`fragsync quarantine\` lists them`,
      );
    // Why the run ended is the last line (a quota stop, a cap, a failed run: where the service
    // was looked for and what to check, sync/finish.ts).
    const ended = endLine(summary);
    if (ended) console.error(`fragsync sync: ${ended}`);
    return exitCodeOfRun(summary);
  } catch (err) {
    progress.done();
    console.error(`fragsync sync: ${oneLine(err)}`);
    // No room to write, or a warehouse another process holds (an overlapping cron run), is the
    // machine's setup, not a bug: make room or wait, run again (it continues).
    if (
      err instanceof ConfigError ||
      (isFragsyncError(err) && (err.code === 'DISK_FULL' || err.code === 'WAREHOUSE_LOCKED'))
    )
      return EXIT.badInput;
    if (isFragsyncError(err) && err.code === 'UNAUTHORIZED') return EXIT.unauthorized;
    if (isFragsyncError(err) && (err.code === 'NETWORK' || err.code === 'API_SERVER_ERROR'))
      return EXIT.apiUnavailable;
    return EXIT.unexpected;
  } finally {
    await runtime.close();
  }
}

/**
 * Why a run that did not read everything ended, in one line (null: it did; what a run
 * completed_with_quarantine did not store, the line before says).
 */
function endLine(s: SyncSummary): string | null {
  if (readAll(s.status)) return null;
  if (s.message) return s.message;
  if (s.status === 'quota_exhausted')
    return `stopped: the daily quota is down to the reserve and --no-wait was given; it resets at ${resetsAt(s)}, run again then to continue`;
  return null;
}

/** The tables' files in an export folder (it holds nothing else: warehouse/export.ts). */
function parquetFiles(dir: string): number {
  return readdirSync(dir).filter((f) => f.endsWith('.parquet')).length;
}
