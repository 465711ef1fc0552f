import { expect } from 'vitest';
import { jobConcurrency, loadConfig } from '../../src/config/index.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { paidAgain, paidByKind } from './governed.ts';

/**
 * What the fault and kill scenarios hold a faulted sync's repeated calls to. The bound is the
 * calls of the jobs in flight at each fault (repeatBound), so the jobs a process runs at once
 * are read from the same flags the scenario gives its sync and workers, not assumed.
 */

/**
 * Jobs one process runs at once (jobConcurrency) under `flags`, the command-line flags the
 * scenario passes (config, concurrency, redis...): the queue.concurrency setting, else the
 * default of the driver those flags choose. The environment is not read: a REDIS_URL set for
 * the test run does not make an in-process scenario a BullMQ one.
 */
export function jobsPerProcess(flags: Record<string, string | undefined>): number {
  return jobConcurrency(loadConfig({ flags, env: {} }));
}

/**
 * The billed requests a faulted sync (or its series of runs) repeated, held on both sides.
 * Floor: every request the clean run of the same catalogue billed was billed here too; a fault
 * may make the sync buy something again, never leave it unbought (what it had bought is in the
 * journal or the warehouse, what it had not is still owed), so the repeats are exactly the
 * requests billed more often than in the clean run. Ceiling: `bound`, the calls of the jobs in
 * flight at the faults. Both simulators need recordPaid. Returns the repeats and a line naming
 * them by kind, for the scenario's report.
 */
export function expectRepeatsWithin(
  sim: Simulator,
  clean: { paid: readonly string[] },
  bound: number,
  context = '',
): { dup: number; kinds: string } {
  const run = sim.paidRequests();
  expect(clean.paid.length, 'the clean run recorded its billed requests (recordPaid)').toBeGreaterThan(0);
  const missing = paidAgain(run, clean.paid);
  expect(missing, `${context}: billed in the clean run, never in this one`).toEqual([]);
  const again = paidAgain(clean.paid, run);
  expect(again.length, `${context}: ${paidByKind(again)}`).toBeLessThanOrEqual(bound);
  return { dup: again.length, kinds: paidByKind(again) };
}
