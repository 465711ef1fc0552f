import type { RunStatus } from '../domain/run.ts';
import { exitCodeOfRun } from './exit-codes.ts';
import type { StatusFigures } from './status-figures.ts';

/**
 * `fragsync status --json`: the figures the text shows, as one object with stable camelCase
 * keys (docs/cli.md "Machine output"). Units are in the names (cents, calls); times are
 * ISO 8601 UTC; a figure that was not read (no --redis, a warehouse a sync holds) is null.
 */
export function statusJson(s: StatusFigures): string {
  const g = s.redis?.governor ?? null;
  const f = s.figures;
  const run = f?.run;
  const h = s.holder;
  const writerPause = h?.state === 'paused' ? h.pausedUntil : null;
  const pausedUntil = s.redis?.pausedUntil?.toISOString() ?? writerPause ?? null;
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  return JSON.stringify({
    warehousePath: s.dbPath,
    warehouseState: s.warehouse === 'held' ? 'heldBySync' : s.warehouse,
    redis: s.redis !== null,
    running: s.runningRunId !== null,
    runningRunId: s.runningRunId,
    paused: pausedUntil !== null,
    pausedUntil,
    quotaLimitCalls: g?.limit ?? null,
    quotaRemainingCalls: g?.remaining ?? null,
    quotaResetAt: iso(g?.resetAt),
    quotaReserveCalls: g?.reserve ?? null,
    quotaRemainingCallsLedger: f?.lastQuota?.remaining ?? null,
    quotaLedgerSentAt: f?.lastQuota?.sent ?? null,
    // The reading's service day is over: the quota was renewed at quotaLedgerResetAt since.
    quotaLedgerRenewed: f?.lastQuota ? f.lastQuota.renewed : null,
    quotaLedgerResetAt: f?.lastQuota?.resetAt.toISOString() ?? null,
    callsInFlight: g?.inFlight ?? null,
    centsTodayLedger: f?.spend.cents ?? null,
    callsTodayLedger: f?.spend.calls ?? null,
    serviceDay: f?.spend.day ?? null,
    centsTodayRedis: g?.centsToday ?? null,
    centsThisRunRedis: g?.centsThisRun ?? null,
    queues: s.redis
      ? Object.fromEntries(
          s.redis.queues.map((q) => [q.name, { waiting: q.waiting, active: q.active, delayed: q.delayed }]),
        )
      : null,
    writer: h
      ? {
          runId: h.runId,
          pid: h.pid,
          host: h.host,
          startedAt: h.startedAt || null,
          state: h.state,
          pausedUntil: writerPause,
        }
      : null,
    latestRun: run
      ? {
          runId: run.run_id,
          mode: run.mode,
          status: run.status,
          // Whether the run's process is gone: every run that ended, and one still marked
          // running whose process died (the next sync records it as died); null: unknown
          // (its writer lock is another host's: run-liveness.ts).
          processEnded: processEnded(run, s),
          exitCode:
            run.status === 'running' || run.status === 'died'
              ? null
              : exitCodeOfRun({
                  status: run.status as RunStatus,
                  quarantined: run.quarantined + run.failed_jobs,
                }),
          startedAt: run.started_at,
          endedAt: run.finished_at,
          calls: Number(run.calls ?? 0),
          cents: Number(run.cost_cents ?? 0),
          quarantinedRecords: run.quarantined,
          failedJobs: run.failed_jobs,
          // What the cycle's earlier runs left open (a full run that completed its cycle):
          // why a run with nothing of its own open is completed_with_quarantine, exit 8.
          earlierInCycleRecords: run.earlier_in_cycle.records,
          earlierInCycleFailedJobs: run.earlier_in_cycle.failedJobs,
          storedApartRows: Number(run.stored_apart),
        }
      : null,
  });
}

function processEnded(run: { run_id: string; status: string }, s: StatusFigures): boolean | null {
  if (run.status !== 'running') return true;
  const l = s.liveness(run.run_id);
  return l.state === 'unknown' ? null : l.state === 'died';
}
