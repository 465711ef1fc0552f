import { formatRatio } from '../plan/cost-model.ts';
import { readAll } from '../domain/run.ts';
import type { EndpointCount } from '../warehouse/quarantine.ts';
import type { SyncSummary } from './summary.ts';
import { failedStatusText, overflowLines, serviceDaysLine } from './summary-figures.ts';

/*
 * The run summary as the sync command prints it: the figures summarize() gathered
 * (summary.ts), in lines a reader takes in at the end of a run.
 */

/**
 * When the quota resets, as the service said it (its X-RateLimit-Reset: midnight UTC); the
 * pause's end, which adds the resume jitter, when no response named it.
 */
export function resetsAt(s: Pick<SyncSummary, 'quotaResetsAt' | 'pausedUntil'>): string {
  return (s.quotaResetsAt ?? s.pausedUntil)?.toISOString() ?? 'an unknown time';
}

export function formatSummary(s: SyncSummary): string {
  const lines: string[] = [];
  const dollars = (c: number) => `${c} cents ($${(c / 100).toFixed(2)})`;
  // A run that read everything and quarantined anything (completed_with_quarantine) does not
  // say "completed" (it would read as everything stored) but "ended" and what it did not
  // store (exit 8): records received and refused, jobs that failed (nothing received). Any
  // other status says the run fell short, its line below why.
  const short = s.status === 'completed_with_quarantine';
  const held = short ? s.quarantined.reduce((n, e) => n + e.count, 0) : 0;
  const jobs = short ? s.failedJobs : 0;
  // A run that completed its cycle answers for what the cycle's earlier runs left open too.
  const earlier = short ? s.earlierInCycle.records + s.earlierInCycle.failedJobs : 0;
  const unstored = [
    held > 0 ? `, ${held} record${held === 1 ? '' : 's'} quarantined (not stored)` : '',
    jobs > 0 ? `, ${failedJobsText(jobs)}` : '',
    earlier > 0 ? `, ${earlier} left in quarantine by earlier runs of this cycle` : '',
  ].join('');
  lines.push(
    `run ${s.runId}: ${short ? 'ended' : s.status}${unstored} in ${(s.durationMs / 1000).toFixed(1)} s`,
  );
  if (s.message) lines.push(`  ${s.message}`);
  if (s.pausedUntil && s.status === 'quota_exhausted') lines.push(`  quota resets at ${resetsAt(s)}`);
  lines.push(
    `calls: ${s.calls}   spent: ${dollars(s.cents)} on answered calls   failed calls: ${s.failedCalls}` +
      (s.failedCalls > 0 ? ` (${failedStatusText(s.failedByStatus, s.wrongBaseUrl)})` : ''),
  );
  // Whether failed calls are billed is not in the spec: their list price is said apart.
  if (s.failedCents > 0)
    lines.push(`  up to ${dollars(s.failedCents)} more if the service bills failed calls`);
  // A refused key read nothing: what it spent and why is all there is to say (no table of zeros).
  if (s.status === 'unauthorized') return lines.join('\n');
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
      `failed jobs: ${s.failures.terminal} terminal, ${s.failures.transient} transient, ${s.failures.internal} internal (in the quarantine table: nothing received, to fetch again by the next sync)`,
    );
  }
  lines.push(
    ...countLines(s.quarantined, 'quarantined records', 'not stored; `fragsync quarantine` lists them'),
  );
  lines.push(...earlierLines(s.earlierInCycle));
  if (s.released > 0)
    lines.push(
      '',
      `released from quarantine: ${s.released} (quarantined by an earlier run, stored by this one)`,
    );
  if (s.gone > 0)
    lines.push(
      '',
      `quarantined by earlier runs: ${s.gone} closed: gone upstream (not stored: the service no longer has them)`,
    );
  if (s.refetched > 0)
    lines.push(
      '',
      `failed jobs of earlier runs fetched by this one: ${s.refetched} (released from quarantine)`,
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

/** Jobs that failed, as the run line, `status` and the dashboard name them (not records: nothing was received). */
export function failedJobsText(n: number): string {
  return `${n} failed job${n === 1 ? '' : 's'} (to fetch again by the next sync)`;
}

/** What the cycle's earlier runs left open in quarantine, in its own line (a run that completed the cycle). */
function earlierLines({ records, failedJobs }: SyncSummary['earlierInCycle']): string[] {
  if (records + failedJobs === 0) return [];
  const what = [
    records > 0 ? `${records} record${records === 1 ? '' : 's'} in quarantine, not stored` : '',
    failedJobs > 0 ? failedJobsText(failedJobs) : '',
  ].filter((w) => w !== '');
  return ['', `earlier runs of this cycle left ${what.join(' and ')} (\`fragsync quarantine\`)`];
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
    // 'nightly' as `fragsync runs` and `status` call it; 'incremental' as --json's mode says.
    return `nightly run (mode incremental): ${items} items new, changed or removed${per}`;
  }
  if (!readAll(s.status))
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
