/**
 * Ctrl-C and SIGTERM for commands that hold paid work (sync): the first signal asks the
 * command to stop cleanly (an AbortSignal it passes on), the second ends the process at once.
 *
 * The second signal does not call process.exit: exiting tears down the loader thread while
 * DuckDB may be running a statement in it, and @duckdb/node-api then aborts the process
 * ("terminate called after throwing an instance of 'Napi::Error'", exit 134; 5 of 6 Ctrl-Cs
 * during a 1,500-fragrance sync with 40 ms answers did). Instead the handler steps aside and
 * the signal is raised again with its default action, which ends the process without running
 * any native teardown: the shell reports 130 for SIGINT (143 for SIGTERM), and nothing the
 * journal holds is lost (it is written as results arrive).
 */

import type { SyncTick } from '../sync/types.ts';
import { markStoppedAtOnce } from '../warehouse/writer-lock.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface Interrupt {
  /** Aborted at the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** Stop listening (the command is done); a later signal has its default action. */
  dispose(): void;
}

/**
 * Listen for SIGINT and SIGTERM. `first` is printed (one line on stderr) when the first
 * arrives; `second` when another arrives, just before the process ends by it, after `atOnce`
 * (synchronous and quick: what can be said and kept without DuckDB, see above).
 */
export function listenForInterrupt(
  messages: { first: string; second: string },
  atOnce?: (sig: NodeJS.Signals) => void,
): Interrupt {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      console.error(`\n${messages.first}`);
      controller.abort();
      return;
    }
    try {
      atOnce?.(sig);
    } catch {
      // Ending now matters more than what could not be said.
    }
    console.error(messages.second);
    dispose();
    // With no listener left the signal's default action is back: it ends the process now.
    process.kill(process.pid, sig);
  };
  const dispose = () => {
    for (const s of SIGNALS) process.off(s, handler);
  };
  for (const s of SIGNALS) process.on(s, handler);
  return { signal: controller.signal, dispose };
}

/**
 * A second signal during a run (`fragsync sync`, `demo`): no DuckDB write is safe (above), so
 * the run's row cannot be closed. What it spent, as its progress last counted (`tick`, at most
 * a second ago), goes to stderr, and the writer lock, left behind, says the run was stopped at
 * once: the next sync records it 'interrupted' (exit 130), not 'died' (sync/dead-runs.ts).
 */
export function reportStoppedAtOnce(command: string, sig: NodeJS.Signals, tick: SyncTick | null): void {
  const calls = tick?.calls ?? 0;
  const cents = tick?.cents ?? 0;
  console.error(
    tick
      ? `fragsync ${command}: run ${tick.runId} spent ${calls} calls, ${cents} cents ($${(cents / 100).toFixed(2)}) as last counted; the requests in flight are paid too (the next sync records the run)`
      : `fragsync ${command}: no call was answered yet`,
  );
  markStoppedAtOnce({ signal: sig, at: new Date().toISOString(), calls, cents });
}
