import type { Config } from '../config/index.ts';
import type { QueueDriver } from '../queue/types.ts';
import type { Governor } from '../governor/types.ts';
import type { LoadItem } from '../domain/items.ts';
import { readAll, withQuarantine, type RunStatus } from '../domain/run.ts';
import type { FetchResult } from './fetch-result.ts';
import type { Frontier } from './frontier.ts';
import type { LoadStage } from './load-stage.ts';
import { summarize, type SyncSummary } from './summary.ts';
import type { OpenRun } from './types.ts';
import { stageMark } from './stage-marks.ts';
import {
  failedJobsInRun,
  openOfEarlierCycleRuns,
  recordEarlierInCycle,
  quarantinedInRun,
  releaseFetchedJobs,
  releaseFetchedSince,
  releaseRemoved,
  supersedeQuarantined,
} from '../warehouse/quarantine.ts';

/**
 * How the run ended. A stop (budget, 402, 401) names itself; a job that failed on the
 * program's own error makes it internal_error (a bug is reported whatever else happened, and
 * never as the service's fault); then an interrupt (SIGINT, SIGTERM); a quota pause the run
 * was told not to wait through is quota_exhausted; jobs that failed with the service
 * unreachable make it failed; otherwise it completed (finishRun makes that
 * 'completed_with_quarantine' when records of the run, or for a full run that completes its
 * cycle of the cycle's earlier runs, are still in quarantine at its end).
 */
export function runStatus(fetched: FetchResult, pausedUntil: Date | null, waitForQuota: boolean): RunStatus {
  if (fetched.stop) return fetched.stop.reason;
  if (fetched.internalFailures > 0) return 'internal_error';
  if (fetched.interrupted) return 'interrupted';
  if (pausedUntil !== null && !waitForQuota) return 'quota_exhausted';
  if (fetched.transientFailures > 0) return 'failed';
  return 'completed';
}

/**
 * Lists this run read whole: what the warehouse knows beyond them left upstream. Only a
 * completed run may say so (a stopped one may not have read the list it would judge by).
 */
export function listRemovals(
  frontier: Pick<Frontier, 'knownKeys'>,
  listed: FetchResult['listed'],
): LoadItem[] {
  const removals: LoadItem[] = [];
  for (const entity of ['accord', 'chart'] as const) {
    const seen = listed[entity];
    if (!seen) continue;
    const keys = frontier.knownKeys(entity).filter((k) => !seen.has(k));
    if (keys.length > 0) removals.push({ kind: 'removal', entity, keys });
  }
  return removals;
}

export interface FinishInput {
  config: Config;
  fetched: FetchResult;
  frontier: Frontier;
  load: LoadStage;
  driver: QueueDriver;
  /** Asked, when the run ends paused for quota, for the reset the service named. */
  governor: Pick<Governor, 'status'>;
}

/**
 * The finish stage: judges the run, records list removals of a run that read everything, lets
 * the driver deliver the last ledger rows, commits everything (the load stage's last batch),
 * releases what this run stored of earlier quarantined records, closes the run's row (with
 * what is still quarantined of it in its status), exports Parquet after a run that read
 * everything, and sums the run up from the warehouse. A warehouse that could not be written
 * fails the run with its own error.
 */
export async function finishRun(run: OpenRun, input: FinishInput): Promise<SyncSummary> {
  const { config, fetched, frontier, load, driver } = input;
  if (fetched.writeFailure) {
    await load.close().catch(() => undefined);
    throw fetched.writeFailure;
  }
  stageMark('finish: last batches');
  // What the run read decides its removals; what it could not store is known only once all
  // is loaded (below): a run that quarantined records read its lists whole all the same.
  const read = runStatus(fetched, driver.pausedUntil(), config.quota.wait);
  if (read === 'completed') {
    const removals = listRemovals(frontier, fetched.listed);
    if (removals.length > 0) load.add(removals, []);
  }
  await driver.settle?.();
  await load.close();
  const { warehouse } = run;
  // A record this run quarantined again with another answer: its older rows are superseded.
  await supersedeQuarantined(warehouse, new Date());
  // Records now gone upstream (a 404, or their list): closed, nothing of them is missing.
  const gone = await releaseRemoved(warehouse, new Date());
  // What earlier runs quarantined and this one stored after all (the nightly asks again).
  const released = await releaseFetchedSince(warehouse, new Date());
  // Jobs of earlier runs that failed (the service unreachable), whose work this one did.
  const refetched = await releaseFetchedJobs(warehouse, new Date());
  // What is still quarantined of this run, as its summary lists it and its exit code counts it:
  // the records it received and could not store, and the jobs that failed (another 4xx in a run
  // that read the rest: nothing of them is stored either).
  const quarantined = await quarantinedInRun(warehouse, run.runId);
  const failedJobs = await failedJobsInRun(warehouse, run.runId);
  // A full run that completes its cycle answers for the cycle's mirror: what its earlier runs
  // left open (it did not ask those records again, the cycle had them) is missing as well. A
  // nightly asks every open record again: what is still open is its own.
  const earlier =
    run.mode !== 'nightly' && read === 'completed'
      ? await openOfEarlierCycleRuns(warehouse, run.runId)
      : { records: 0, failedJobs: 0 };
  const open = quarantined.reduce((n, e) => n + e.count, 0) + failedJobs;
  const status = withQuarantine(read, open + earlier.records + earlier.failedJobs);
  stageMark('finish: run row');
  await warehouse.finishRun(run.runId, status, new Date(), fetched.clockOffsetMs);
  await recordEarlierInCycle(warehouse, run.runId, earlier);
  await warehouse.query("DELETE FROM sync_walks WHERE walk LIKE 'journal:%'");
  if (readAll(status) && config.export.parquetDir) {
    stageMark('finish: Parquet');
    await warehouse.exportParquet(config.export.parquetDir);
  }
  stageMark('finish: summary');
  const pausedUntil = driver.pausedUntil();

  return await summarize(warehouse, {
    runId: run.runId,
    mode: run.mode === 'nightly' ? 'incremental' : 'full',
    status,
    started: run.started,
    config,
    stopMessage: fetched.stop?.message ?? statusMessage(status, fetched, config.baseUrl),
    pausedUntil,
    quotaResetsAt: pausedUntil ? ((await input.governor.status()).resetAt ?? null) : null,
    terminalFailures: fetched.terminalFailures,
    transientFailures: fetched.transientFailures,
    internalFailures: fetched.internalFailures,
    loaded: load.loaded,
    owedJobs: await owedJobs(driver, fetched),
    inFlight: fetched.occupancy,
    released,
    gone,
    refetched,
    quarantined,
    failedJobs,
    earlierInCycle: earlier,
    removalsConfirmed: fetched.removalsConfirmed,
    wrongBaseUrl: status === 'failed' && fetched.firstFailureCode === 'NOT_FOUND',
  });
}

/** What the driver still holds, and what the admission window never handed it (still owed). */
async function owedJobs(driver: QueueDriver, fetched: FetchResult) {
  const counts = await driver.counts();
  return { ...counts, waiting: counts.waiting + fetched.notAdmitted };
}

/**
 * Why a run failed, in one short line that names the base URL and what to check: a list
 * answered 404 is a wrong URL (the service answered), not an unreachable one.
 */
function failedMessage(f: FetchResult, baseUrl: string | null): string {
  const at = baseUrl ?? '(no base URL)';
  if (f.firstFailureCode === 'NOT_FOUND')
    return `${at} is not the Fragrance Data Service's base URL: its lists answered 404; ${
      /\/v1\/?$/.test(at) ? 'drop the trailing /v1' : 'check --base-url'
    }`;
  // What failed, without the code, the request and the page the summary's log lines give.
  const what = (f.firstFailure ?? '').replace(/^[A-Z_]+: [A-Z]+ \S+: /, '').replace(/ \(page=\d+\)$/, '');
  if (f.firstFailureCode === 'API_SERVER_ERROR')
    return `the Fragrance Data Service at ${at} kept failing after bounded retries: ${what}; run again later`;
  return `cannot reach the Fragrance Data Service at ${at}: ${what}; check --base-url and the network`;
}

function statusMessage(status: RunStatus, f: FetchResult, baseUrl: string | null): string | null {
  if (status === 'internal_error')
    return `${f.internalFailures} jobs failed on an internal error (a bug in fragsync, not the service); first: ${f.firstInternal}`;
  if (status === 'interrupted')
    return 'interrupted: the requests in flight finished and everything fetched is loaded; run again to continue';
  if (status === 'failed') return failedMessage(f, baseUrl);
  return null;
}
