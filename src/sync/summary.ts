import type { OccupancyFigures } from '../api/occupancy.ts';
import type { Config } from '../config/index.ts';
import { formatRatio, type Cost } from '../plan/cost-model.ts';
import { buildPlan } from '../plan/plan.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import type { RunChanges } from '../warehouse/run-changes.ts';
import { flaggedInRun, quarantinedInRun, type EndpointCount } from '../warehouse/quarantine.ts';
import type { RunStatus } from '../domain/run.ts';
import {
  catalogueMinimum,
  cycleRuns,
  failedByStatus,
  failedStatusText,
  overflowInRun,
  overflowLines,
  serviceDaysLine,
  spendByEndpoint,
  tableRows,
  type EndpointSpend,
  type FailedStatus,
  type OverflowCount,
} from './summary-figures.ts';

/**
 * full: everything was fetched (the first run, --full); incremental: only what changed or was
 * owed. Set by whoever decides the run's mode (the nightly engine); 'full' until then.
 */
export type SummaryMode = 'full' | 'incremental';

export interface SyncSummary {
  runId: string;
  mode: SummaryMode;
  /** Why the run ended: the cause the command line turns into an exit code. */
  status: RunStatus;
  message: string | null;
  durationMs: number;
  /** Every request the run sent, failed ones included. */
  calls: number;
  /** Cents of the calls answered 200: what the service billed for certain. */
  cents: number;
  /**
   * Calls not answered 200 (errors, and requests with no answer), and their list price: the
   * spec does not say whether failed calls are billed, so up to failedCents more may be.
   */
  failedCalls: number;
  failedCents: number;
  /** The failed calls per HTTP status (0: no answer), most first: a 404 is an item gone upstream. */
  failedByStatus: FailedStatus[];
  /** The same per endpoint template. */
  byEndpoint: EndpointSpend[];
  /** Rows per contract table after the run. */
  rows: Record<string, number>;
  /**
   * What this run did: rows added, changed and removed per data table, and the items those
   * rows belong to (warehouse/run-changes.ts); null when the run took no baseline.
   */
  changes: RunChanges | null;
  /** The cheapest possible full sync of the mirrored catalogue (docs/cost-model.md). */
  minimum: Cost;
  /**
   * cents / minimum.cents, only for a full run that completed and began its cycle (read the
   * whole catalogue itself): against part of the work it would read as a bargain.
   */
  costRatio: number | null;
  /** The same with the failed calls' list price counted (a service that bills them); null with costRatio. */
  costRatioIfFailedBilled: number | null;
  /** Full runs before this one in its cycle that read something (0: this run began it). */
  earlierCycleRuns: number;
  /** A completed full cycle read over several service days (the next nightly's to catch up), else null. */
  serviceDays: { count: number; first: string; last: string } | null;
  /** Incremental runs: cents per item (fragrance, brand, ...) this run added, changed or removed. */
  centsPerChangedItem: number | null;
  pausedUntil: Date | null;
  failures: { terminal: number; transient: number; internal: number };
  /**
   * Records this run could not store (the quarantine table), per endpoint as recorded, with
   * one example reason: a completed run that quarantined anything has its own exit code.
   */
  quarantined: EndpointCount[];
  /** Records earlier runs quarantined that this run stored after all (released from quarantine). */
  released: number;
  /** Values this run stored as sent though they break a range the spec states (value_flags), per table. */
  flagged: EndpointCount[];
  /**
   * Rows this run stored in the overflow tables, per table with any: entries the contract's
   * keys cannot hold (tied ranks, repeats). Stored and exported, so the exit code stays.
   */
  overflow: OverflowCount[];
  owedJobs: { waiting: number; active: number; delayed: number };
  /**
   * What the rest of the open cycle would cost (cost model, from the warehouse after this
   * run); null when the run completed. lowerBound: some walk sizes or review totals are still
   * unknown, so only their first pages are counted.
   */
  owed: { calls: number; cents: number; lowerBound: boolean } | null;
  /**
   * Requests in flight over the fetch (time-weighted) against http.concurrency, and why slots
   * were idle (api/occupancy.ts): how well the service's latency was hidden, whatever the
   * machine's speed. Null when not measured.
   */
  inFlight: OccupancyFigures | null;
}

export interface SummaryInput {
  runId: string;
  status: RunStatus;
  started: Date;
  config: Config;
  stopMessage: string | null;
  pausedUntil: Date | null;
  terminalFailures: number;
  transientFailures: number;
  internalFailures: number;
  loaded: Record<string, number>;
  owedJobs: { waiting: number; active: number; delayed: number };
  /** Default 'full'. */
  mode?: SummaryMode;
  inFlight?: OccupancyFigures | null;
  /** Default 0. removalsConfirmed: the items this run's 404s confirmed gone upstream (FetchResult). */
  released?: number;
  removalsConfirmed?: number;
}

export async function summarize(wh: WarehouseHandle, input: SummaryInput): Promise<SyncSummary> {
  // The statements run one after another in the warehouse; asked at once, none waits for the
  // answer to the one before to cross back from the loader thread (about 35 of them, which
  // took 0.3-0.7 s at 20k, docs/benchmarks.md, session 10; the row counts are one statement).
  const counted = tableRows(wh);
  const [byEndpoint, rows, minimum, changes, before, quarantined, flagged, state, failed, overflow] =
    await Promise.all([
      spendByEndpoint(wh, input.runId),
      counted,
      catalogueMinimum(wh, input.config, counted),
      wh.runChanges(),
      cycleRuns(wh, input.runId),
      quarantinedInRun(wh, input.runId),
      flaggedInRun(wh, input.runId),
      input.status === 'completed' ? null : wh.syncState(),
      failedByStatus(wh, input.runId, input.removalsConfirmed),
      overflowInRun(wh, input.runId),
    ]);
  const sum = (f: (e: (typeof byEndpoint)[number]) => number) => byEndpoint.reduce((s, e) => s + f(e), 0);
  let owed: SyncSummary['owed'] = null;
  if (state) {
    // What `fragsync plan` says next, by the same call (the service's clock as this run saw it).
    const plan = buildPlan(state, input.config, null);
    owed = { calls: plan.cost.calls, cents: plan.cost.cents, lowerBound: plan.atLeast };
  }
  const calls = sum((e) => e.calls);
  const cents = sum((e) => e.cents);
  const mode = input.mode ?? 'full';
  const changedItems = changes ? Object.values(changes.items).reduce((a, b) => a + b, 0) : 0;
  const earlierCycleRuns = mode === 'full' ? before.earlier : 0;
  const whole = mode === 'full' && input.status === 'completed' && earlierCycleRuns === 0;
  return {
    runId: input.runId,
    mode,
    status: input.status,
    message: input.stopMessage,
    durationMs: Date.now() - input.started.getTime(),
    calls,
    cents,
    failedCalls: sum((e) => e.failedCalls),
    failedCents: sum((e) => e.failedCents),
    failedByStatus: failed,
    byEndpoint,
    rows,
    changes,
    minimum,
    // A run that stopped early (cap, quota, Ctrl-C) or finished a cycle others began did part
    // of the work: its cents over the whole minimum would read as a bargain.
    costRatio: whole && minimum.cents > 0 ? cents / minimum.cents : null,
    costRatioIfFailedBilled:
      whole && minimum.cents > 0 ? (cents + sum((e) => e.failedCents)) / minimum.cents : null,
    earlierCycleRuns,
    serviceDays: mode === 'full' && input.status === 'completed' ? before.days : null,
    centsPerChangedItem: mode === 'incremental' && changedItems > 0 ? cents / changedItems : null,
    pausedUntil: input.pausedUntil,
    failures: {
      terminal: input.terminalFailures,
      transient: input.transientFailures,
      internal: input.internalFailures,
    },
    owedJobs: input.owedJobs,
    owed,
    inFlight: input.inFlight ?? null,
    quarantined,
    released: input.released ?? 0,
    flagged,
    overflow,
  };
}

export function formatSummary(s: SyncSummary): string {
  const lines: string[] = [];
  const dollars = (c: number) => `${c} cents ($${(c / 100).toFixed(2)})`;
  // A completed run that quarantined anything says so in its first line: "completed" alone would
  // read as everything stored. Any other status says the run fell short, its line below why.
  const held = s.status === 'completed' ? s.quarantined.reduce((n, e) => n + e.count, 0) : 0;
  const unstored = held > 0 ? `, ${held} record${held === 1 ? '' : 's'} quarantined (not stored)` : '';
  lines.push(`run ${s.runId}: ${s.status}${unstored} in ${(s.durationMs / 1000).toFixed(1)} s`);
  if (s.message) lines.push(`  ${s.message}`);
  if (s.pausedUntil && s.status === 'quota_exhausted')
    lines.push(`  quota resets at ${s.pausedUntil.toISOString()}`);
  lines.push(
    `calls: ${s.calls}   spent: ${dollars(s.cents)} on answered calls   failed calls: ${s.failedCalls}` +
      (s.failedCalls > 0 ? ` (${failedStatusText(s.failedByStatus)})` : ''),
  );
  // Whether failed calls are billed is not in the spec: their list price is said apart.
  if (s.failedCents > 0)
    lines.push(`  up to ${dollars(s.failedCents)} more if the service bills failed calls`);
  if (s.owed) {
    const what =
      s.mode === 'full'
        ? 'to finish this full sync'
        : "for what is due, this run's undone work included (new items the next walks find come on top)";
    lines.push(
      `still owed: ${s.owed.lowerBound ? 'at least ' : ''}${s.owed.calls} calls, ${dollars(s.owed.cents)} ${what}; \`fragsync plan\` lists them per endpoint`,
    );
  }
  lines.push(costLine(s, dollars));
  lines.push(...serviceDaysLine(s.serviceDays));
  if (s.byEndpoint.length > 0) {
    const w = Math.max(...s.byEndpoint.map((e) => e.endpoint.length));
    const cols = (...v: (string | number)[]) => v.map((x) => String(x).padStart(9)).join('  ');
    lines.push('', `${'endpoint'.padEnd(w)}  ${cols('calls', 'cents', 'failed', 'if billed')}`);
    for (const e of s.byEndpoint)
      lines.push(`${e.endpoint.padEnd(w)}  ${cols(e.calls, e.cents, e.failedCalls, e.failedCents)}`);
  }
  lines.push('', ...tableLines(s), ...overflowLines(s.overflow));
  if (s.failures.terminal + s.failures.transient + s.failures.internal > 0) {
    lines.push(
      '',
      `failed jobs: ${s.failures.terminal} terminal, ${s.failures.transient} transient, ${s.failures.internal} internal (see the quarantine table)`,
    );
  }
  lines.push(
    ...countLines(s.quarantined, 'quarantined records', 'not stored; `fragsync quarantine` lists them'),
  );
  if (s.released > 0)
    lines.push(
      '',
      `released from quarantine: ${s.released} (quarantined by an earlier run, stored by this one)`,
    );
  lines.push(
    ...countLines(
      s.flagged,
      'flagged values',
      'stored as sent, outside a range the spec states; the value_flags view',
    ),
  );
  return lines.join('\n');
}

/** Rows per table after the run, and what this run added, changed and removed in each. */
function tableLines(s: SyncSummary): string[] {
  const tw = Math.max(...Object.keys(s.rows).map((t) => t.length));
  const c = s.changes?.tables;
  const num = (n: number | undefined, w: number) => (n === undefined ? '' : String(n)).padStart(w);
  const head = `${'table'.padEnd(tw)}  ${'rows'.padStart(9)}`;
  const out = [
    c ? `${head}  ${'added'.padStart(8)}  ${'changed'.padStart(8)}  ${'removed'.padStart(8)}` : head,
  ];
  for (const [t, n] of Object.entries(s.rows)) {
    const line = `${t.padEnd(tw)}  ${String(n).padStart(9)}`;
    const d = c?.[t];
    out.push(d ? `${line}  ${num(d.added, 8)}  ${num(d.changed, 8)}  ${num(d.removed, 8)}` : line);
  }
  return out;
}

/** "quarantined: 3 records", then a line per endpoint with its count and one example reason. */
function countLines(counts: EndpointCount[], label: string, note: string): string[] {
  if (counts.length === 0) return [];
  const total = counts.reduce((n, c) => n + c.count, 0);
  const w = Math.max(...counts.map((c) => c.endpoint.length));
  return [
    '',
    `${label}: ${total} (${note})`,
    ...counts.map((c) => `  ${c.endpoint.padEnd(w)}  ${String(c.count).padStart(6)}  e.g. ${c.example}`),
  ];
}

/**
 * Against the cheapest full sync only when the run read the whole catalogue itself (a full
 * run that began its cycle and completed); else what the run did. The minimum of a catalogue
 * mirrored in part would be too low, so a full run that did not finish names none.
 */
function costLine(s: SyncSummary, dollars: (c: number) => string): string {
  const items = s.changes ? Object.values(s.changes.items).reduce((a, b) => a + b, 0) : 0;
  const cheapest = `cheapest possible full sync of this catalogue: ${s.minimum.calls} calls, ${dollars(s.minimum.cents)}`;
  if (s.mode === 'incremental') {
    const per = s.centsPerChangedItem === null ? '' : `   ${s.centsPerChangedItem.toFixed(2)} cents per item`;
    return `incremental run: ${items} items new, changed or removed${per}`;
  }
  if (s.status !== 'completed')
    return `full sync not finished: this run read ${items} items new, changed or removed; no cost ratio until a run reads the whole catalogue`;
  if (s.earlierCycleRuns > 0)
    return `full cycle finished by this run, begun by ${s.earlierCycleRuns} earlier run(s): no cost ratio for this run alone (${cheapest})`;
  if (s.costRatio === null) return cheapest;
  // Whether failed calls are billed is not in the spec: the ratio either way, when they differ.
  // Each rounded away from 1 (formatRatio): a ratio that is not exactly 1 never reads 1.000.
  const ifBilled =
    s.failedCents > 0 && s.costRatioIfFailedBilled !== null
      ? ` (${formatRatio(s.costRatioIfFailedBilled)} if the service bills failed calls)`
      : '';
  return `${cheapest}   cost ratio: ${formatRatio(s.costRatio)}${ifBilled}`;
}
