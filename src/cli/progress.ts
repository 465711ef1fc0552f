import type { SyncTick } from '../sync/types.ts';
import { fit, widthOf } from './output/cell.ts';

/**
 * One live line on a terminal, redrawn in place and cut to the terminal's width (a line that
 * wrapped would scroll instead of being redrawn); a plain line every `everyMs` otherwise
 * (cron logs).
 */
export function progressReporter(
  stream: NodeJS.WriteStream = process.stderr,
  everyMs = 10_000,
): {
  tick(t: SyncTick): void;
  done(): void;
} {
  const tty = stream.isTTY === true;
  let lastPlain = 0;
  let drawn = false;
  return {
    tick(t) {
      if (tty) {
        // One column short of the width: writing the last column makes some terminals wrap.
        const line = fitTick(t, (stream.columns || 80) - 1);
        stream.write(`\r\x1b[2K${line}`);
        drawn = true;
      } else if (t.elapsedMs - lastPlain >= everyMs) {
        lastPlain = t.elapsedMs;
        stream.write(`${new Date().toISOString()} ${formatTick(t)}\n`);
      }
    },
    done() {
      if (tty && drawn) stream.write('\r\x1b[2K');
    },
  };
}

/**
 * phase | calls done of planned | cents of budget | quota left | ETA (the pause in force, then
 * the calls left at the rate seen outside pauses). Planned calls are those made plus the jobs
 * still owed at the calls per job seen so far (a review job reads several pages), or the run's
 * estimate when larger: a full run's from the fragrance list's total once its page 1 is read
 * (sync/call-estimate.ts), a nightly's from its plan (sync/nightly-estimate.ts). The jobs
 * alone grow until the walks end, and in a nightly until the gate lets the refreshes out.
 * Under --max-cents or --max-cents-per-day either is no more than the cap lets the run make
 * (withinCap).
 */
export function formatTick(t: SyncTick): string {
  return tickParts(t).join(' | ');
}

/** The line in `width` columns: the ETA, then the quota, then the budget give way; then it is cut. */
export function fitTick(t: SyncTick, width: number): string {
  const parts = tickParts(t);
  while (parts.length > 2 && widthOf(parts.join(' | ')) > width) parts.pop();
  return fit(parts.join(' | '), width);
}

function tickParts(t: SyncTick): string[] {
  const cap = centsCap(t);
  const budget =
    cap === null ? `${t.cents} cents` : `${t.cents}/${cap.cents} cents${cap.day ? ' (day cap)' : ''}`;
  const quota = t.quotaRemaining !== null ? `quota ${t.quotaRemaining} left` : 'quota ?';
  // Jobs per second while not paused: time spent waiting for the quota is no measure of speed.
  const workedMs = t.elapsedMs - t.pausedMs;
  const rate = workedMs > 0 ? t.jobsDone / (workedMs / 1000) : 0;
  // A pause in force adds what is left of it (the reset; a recheck may end it sooner).
  const pauseLeftMs = t.pausedUntil ? Math.max(0, t.pausedUntil.getTime() - Date.now()) : 0;
  const left = Math.max(0, t.jobsScheduled - t.jobsDone);
  const byJobs = t.jobsDone > 0 ? Math.round(t.calls + (left * t.calls) / t.jobsDone) : null;
  // The run's estimate says early what the jobs scheduled so far cannot (call-estimate.ts).
  const planned = byJobs === null ? null : withinCap(Math.max(byJobs, t.expectedCalls ?? 0), t);
  const calls = planned !== null ? `calls ${t.calls} of ~${planned}` : `calls ${t.calls}`;
  // The calls left at the calls per second seen outside pauses (by jobs alone: jobs left / rate).
  const callsLeft = planned === null ? 0 : planned - t.calls;
  const eta =
    rate > 0 && callsLeft > 0 && t.phase !== 'stopping'
      ? `ETA ${formatDuration(pauseLeftMs + (callsLeft / ((rate * t.calls) / t.jobsDone)) * 1000)}`
      : '';
  const phase =
    t.phase === 'stopping'
      ? 'stopping: the jobs in hand finish'
      : t.pausedUntil
        ? `paused until ${t.pausedUntil.toISOString()}`
        : t.phase;
  return [phase, calls, budget, quota, eta].filter(Boolean);
}

/**
 * The planned calls, but no more than the run makes before its cap stops it: the calls made
 * plus those the cents left buy at this run's cents per call so far. Both estimates price
 * everything owed (a nightly's plan, a full run's list total): with --max-cents 120 a nightly
 * showed `calls 65 of ~679 | 87/120 cents` and stopped at the cap 4 s later. The mean price
 * of the work they priced was tried too and said worse (a capped run buys the front of its
 * order, not the plan's mix: 1.09 cents a call priced, 1.54 paid in a nightly at 300).
 */
function withinCap(planned: number, t: SyncTick): number {
  const cap = centsCap(t);
  if (cap === null || t.calls === 0 || t.cents === 0) return planned;
  const affordable = Math.floor(Math.max(0, cap.cents - t.cents) / (t.cents / t.calls));
  return Math.min(planned, t.calls + affordable);
}

/**
 * The cents this run may spend in all: the smaller of its own cap and what the day's cap
 * left it at its start (a day already part spent leaves less than --max-cents); `day` when
 * the day's is the smaller. Null without either.
 */
function centsCap(t: SyncTick): { cents: number; day: boolean } | null {
  if (t.dayCentsLeft !== null && (t.maxCents === null || t.dayCentsLeft < t.maxCents))
    return { cents: t.dayCentsLeft, day: true };
  return t.maxCents === null ? null : { cents: t.maxCents, day: false };
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
