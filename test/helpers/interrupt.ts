import { expect } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { fragsync } from './cli.ts';
import { queryWarehouse } from './governed.ts';
import { spawnSync, type SyncProc, type SyncProcOptions } from './sync-process.ts';

/**
 * Ctrl-C scenarios (test/e2e/interrupt.test.ts, test/faults/sigint.fault.ts): a real
 * `fragsync sync` process against the simulator, interrupted once it is sending.
 */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type SyncEnd = Awaited<SyncProc['exited']>;

/** A sync process, and a flag that turns true when it exits. */
function started(sim: Simulator, dbPath: string, opts: SyncProcOptions) {
  const proc = spawnSync(sim, dbPath, opts);
  const state = { exited: false };
  const exited = proc.exited.finally(() => (state.exited = true));
  return { proc, exited, state };
}

/** Waits until the service has answered `calls` more requests (or the process ended). */
async function untilSending(sim: Simulator, state: { exited: boolean }, calls: number): Promise<void> {
  const before = sim.ledger().calls;
  while (sim.ledger().calls < before + calls && !state.exited) await sleep(5);
}

/**
 * Starts a sync, lets it send, waits `delayMs` more and sends SIGINT once. Returns how it
 * ended, the requests the service had in hand at the signal (they are paid whatever happens),
 * and whether the signal came while the sync was still running.
 */
export async function interruptOnce(
  sim: Simulator,
  dbPath: string,
  opts: SyncProcOptions,
  delayMs: number,
): Promise<{ end: SyncEnd; inFlight: number; inTime: boolean }> {
  const { proc, exited, state } = started(sim, dbPath, opts);
  await untilSending(sim, state, 5);
  await sleep(delayMs);
  const inTime = !state.exited;
  const inFlight = sim.inFlight().now;
  proc.signal('SIGINT');
  return { end: await exited, inFlight, inTime };
}

/**
 * Starts a sync and sends SIGINT while requests are on the wire, then a second SIGINT as soon
 * as the sync says it is stopping. Answers should be slow (seconds) so that the drain is
 * still waiting for them when the second signal comes.
 */
export async function interruptTwice(
  sim: Simulator,
  dbPath: string,
  opts: SyncProcOptions,
): Promise<{ end: SyncEnd; inTime: boolean }> {
  const { proc, exited, state } = started(sim, dbPath, opts);
  // After the first answer: a process that dies holding the probe of an unknown quota window
  // (the one request sent before the quota is known) blocks the next one for the ticket TTL.
  await untilSending(sim, state, 1);
  while (sim.inFlight().now === 0 && !state.exited) await sleep(5);
  proc.signal('SIGINT');
  while (!proc.output().includes('stopping: no new calls') && !state.exited) await sleep(5);
  const inTime = !state.exited;
  proc.signal('SIGINT');
  return { end: await exited, inTime };
}

/** No native abort of DuckDB (exit 134, "terminate called after throwing ... Napi::Error"). */
export function expectNoNativeAbort(end: SyncEnd): void {
  expect(end.output).not.toContain('Napi::Error');
  expect(end.output).not.toContain('terminate called');
  expect(end.signal).not.toBe('SIGABRT');
  expect(end.code).not.toBe(134);
}

/** A drained interrupt: exit 130 and the partial summary of an interrupted run. */
export function expectDrained(end: SyncEnd): void {
  expectNoNativeAbort(end);
  expect(end.code, end.output).toBe(EXIT.interrupted);
  expect(end.output).toMatch(/^run run-\S+: interrupted in [\d.]+ s$/m);
  expect(end.output).toMatch(/^calls: \d+ {3}spent: /m);
}

/** Waits until the service has answered every request it received (aborted ones included). */
export async function serviceQuiet(sim: Simulator): Promise<void> {
  while (sim.inFlight().now > 0) await sleep(10);
}

/**
 * A run a second SIGINT stopped at once, as the next sync recorded it: interrupted (exit 130
 * in `fragsync runs`), not died, and its sync_run_deaths row says so.
 */
export async function expectStoppedAtOnce(dbPath: string, runId: string): Promise<void> {
  const runs = JSON.parse((await fragsync(['runs', '--db', dbPath, '--format', 'json'])).stdout);
  expect(runs.find((r: { run_id: string }) => r.run_id === runId)).toMatchObject({
    cause: 'interrupted',
    exit_code: EXIT.interrupted,
  });
  const why = await queryWarehouse<{ reason: string }>(
    dbPath,
    `SELECT reason FROM sync_run_deaths WHERE run_id = '${runId}'`,
  );
  expect(why[0]?.reason).toMatch(/^stopped at once by a second SIGINT at /);
}
