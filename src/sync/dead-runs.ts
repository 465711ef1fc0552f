import type { WarehouseHandle } from '../warehouse/handle.ts';
import { sqlFile } from '../warehouse/sql-files.ts';
import type { LockHolder, StoppedAtOnce } from '../warehouse/writer-lock.ts';

/**
 * Runs left 'running' when a sync opens the warehouse. The opening sync holds the writer
 * lock, which a live run never lets go of before it closes its row, so every such run's
 * process is gone: killed (SIGKILL, out of memory), its machine lost, or a write to the
 * warehouse failed. It is recorded as 'died', not 'interrupted': nobody interrupted it, and
 * the exit code it gave (137 for a SIGKILL, say) was seen by no process that could record
 * it, so none is claimed. A run whose lock says it was stopped at once by a second signal
 * (cli/interrupt.ts) was interrupted: it is recorded so, ended when the signal came.
 */
export async function closeDeadRuns(
  warehouse: Pick<WarehouseHandle, 'query' | 'finishRun'>,
  by: { runId: string; started: Date; tookOver: LockHolder | null },
): Promise<{ runId: string; status: 'died' | 'interrupted' }[]> {
  const dead = await warehouse.query<{ run_id: string }>(
    "SELECT run_id FROM sync_runs WHERE status = 'running' ORDER BY started_at",
  );
  const closed: { runId: string; status: 'died' | 'interrupted' }[] = [];
  for (const { run_id: runId } of dead) {
    const stopped = by.tookOver?.runId === runId ? (by.tookOver.stoppedAtOnce ?? null) : null;
    await warehouse.query(sqlFile('runs/died.sql'), [
      runId,
      by.runId,
      by.started.toISOString(),
      stopped ? stoppedReason(by.tookOver!, stopped) : deathReason(runId, by.tookOver),
    ]);
    // Stopped at once by a second signal (its lock says so): interrupted when the signal came,
    // as a drained interrupt is (exit 130). Else at this run's own start, the same instant:
    // `fragsync runs` shows its end as unknown.
    if (stopped) await warehouse.finishRun(runId, 'interrupted', new Date(stopped.at));
    else await warehouse.finishRun(runId, 'died', by.started);
    closed.push({ runId, status: stopped ? 'interrupted' : 'died' });
  }
  return closed;
}

function stoppedReason(h: LockHolder, s: StoppedAtOnce): string {
  return `stopped at once by a second ${s.signal} at ${s.at} (pid ${h.pid} on ${h.host}), when it had counted ${s.calls} calls, ${s.cents} cents; no DuckDB write was safe then, so the next sync closed it, with what its journal kept`;
}

/** Why: the process the stale writer lock named, when it was this run's. */
function deathReason(runId: string, stale: LockHolder | null): string {
  const who =
    stale && stale.runId === runId ? `its process (pid ${stale.pid} on ${stale.host})` : 'its process';
  return `${who} ended without closing the run (killed: SIGKILL, out of memory; its machine stopped; or a write to the warehouse failed); its exit code was not recorded`;
}
