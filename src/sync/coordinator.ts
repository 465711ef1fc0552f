import type { FragranceClient } from '../api/client.ts';
import type { QueueDriver } from '../queue/types.ts';
import { FetchStage } from './fetch-stage.ts';
import { finishRun } from './finish.ts';
import { LoadStage } from './load-stage.ts';
import { openRun, planRun } from './open-run.ts';
import { clientFromConfig } from './client.ts';
import type { SyncSummary } from './summary.ts';
import type { SyncDeps } from './types.ts';
import { clearStageMarks, stageMark } from './stage-marks.ts';

/**
 * `fragsync sync`, as four stages with typed values between them (src/sync/types.ts):
 * - open (open-run.ts): the warehouse, journal replay, the run's row, today's spend;
 * - plan (open-run.ts): what the warehouse says is owed, as the frontier;
 * - fetch and load (fetch-stage.ts, load-stage.ts): the jobs run through a queue driver,
 *   either one; their results are journaled and loaded in batches by the single writer;
 * - finish (finish.ts): the run's status, list removals, the last commit, the summary.
 * Progress lives in the warehouse, so a run that stops for any reason is continued by the
 * next one.
 */
export async function runSync(deps: SyncDeps): Promise<SyncSummary> {
  const { config } = deps;
  clearStageMarks();
  const run = await openRun(deps);
  let client: FragranceClient | null = null;
  let driver: QueueDriver | null = null;
  /** Whether the run already failed: a failure to close must not hide why. */
  let failed = false;
  try {
    stageMark('plan');
    const frontier = await planRun(run, config);
    let fetch: FetchStage | null = null;
    const load = new LoadStage(run.warehouse, config.dbPath, run.runId, {
      batchItems: config.loader.batchItems,
      flushMs: config.loader.flushMs,
      log: run.log,
      onJournalFailure: () => fetch?.abortJobs(),
    });
    fetch = new FetchStage(run, config, frontier, load);
    client = clientFromConfig(config, {
      // Both checked by openRun: it refuses to start without them.
      baseUrl: config.baseUrl as string,
      apiKey: config.apiKey as string,
      governor: deps.governor,
      // Job attempts record their calls through their own view (execute.ts); a call made
      // outside any job still reaches the ledger.
      onCall: (call) => load.add([call], []),
      // Each request is journaled as it leaves: a kill while it is in flight loses no ledger row.
      onSent: (call) => load.sent(call),
      log: run.log,
    });
    stageMark('start the driver');
    driver = await deps.makeDriver(fetch.driverContext(client, deps.governor));
    stageMark('fetch');
    const fetched = await fetch.fetch(driver, deps.onTick, deps.interrupt, deps.tickMs);
    return await finishRun(run, { config, fetched, frontier, load, driver, governor: deps.governor });
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    stageMark('close: driver');
    await driver?.close();
    stageMark('close: client');
    await client?.close();
    stageMark('close: warehouse');
    // Closing checkpoints the file (Warehouse.close): no room for it is an error of its own
    // when the run went well, and only a log line when the run already failed on something.
    await run.warehouse
      .close()
      .catch((err: unknown) => {
        if (!failed) throw err;
        run.log.warn({ err }, 'closing the warehouse failed too');
      })
      .finally(() => {
        run.writer?.release();
        stageMark('end');
      });
  }
}
