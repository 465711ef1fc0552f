import type { LatestRun } from '../../warehouse/status.ts';
import type { LedgerQuota } from '../../warehouse/ledger-day.ts';
import { describeHolder } from '../../warehouse/writer-lock.ts';
import { EXIT } from '../exit-codes.ts';
import { failedJobsText } from '../../sync/summary-text.ts';
import { gatherStatus, type StatusFigures } from '../status-figures.ts';
import { statusJson } from '../status-json.ts';
import { configOf, type CommandInput } from '../spec.ts';
import type { Liveness } from '../../warehouse/run-liveness.ts';

/**
 * `fragsync status`: the quota, the pause, the queues, today's spend and the latest run, read
 * once (status-figures.ts) and printed as aligned label/value lines (statusRows) or, with
 * --json, as one object (status-json.ts). A setup error (a Redis that does not answer, a dbPath
 * no sync could create) prints nothing on stdout: one line on stderr, exit 2. A warehouse it
 * cannot read still prints what was read, then the line: exit 2 when the file is no warehouse
 * (the user's input), else 1.
 */
export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const s = await gatherStatus(config);
  if ('error' in s) {
    console.error(`fragsync status: ${s.error}`);
    return EXIT.badInput;
  }
  if (input.opts.json === true) console.log(statusJson(s));
  else {
    const out = statusRows(s);
    const w = Math.max(...out.map(([k]) => k.length));
    for (const [k, v] of out) console.log(`${k.padEnd(w)}  ${v}`);
  }
  if (s.warehouse !== 'unreadable') return EXIT.ok;
  console.error(`fragsync status: cannot read the warehouse ${config.dbPath}: ${s.warehouseError}`);
  // A file that is no warehouse (or one too old to read) is the user's input, as for `runs`.
  return s.warehouseInputError ? EXIT.badInput : EXIT.unexpected;
}

/** `fragsync status` as label/value pairs, in display order, from the figures read once. */
function statusRows(s: StatusFigures): [string, string][] {
  const out: [string, string][] = [];
  const fmt = (d: Date | null) => (d ? d.toISOString() : '-');
  const state = stateOf(s);
  if (s.redis) {
    const g = s.redis.governor;
    out.push(
      [
        'quota limit (Redis)',
        g.limit === null ? 'unknown (no call seen through this Redis yet)' : String(g.limit),
      ],
      [
        'quota remaining (Redis)',
        g.remaining === null
          ? 'unknown (no answer seen since the last reset)'
          : `${g.remaining} now: the lowest the service reported this quota day to any process sharing this Redis`,
      ],
      ['quota resets at', fmt(g.resetAt)],
      ['reserve (calls)', String(g.reserve)],
      ['state', state],
      ['calls in flight', String(g.inFlight)],
      // Redis's own count: syncs that ran without this Redis are only in the ledger's line.
      ['cents spent today (Redis)', `${g.centsToday} by syncs sharing this Redis`],
      ['cents this run', String(g.centsThisRun)],
      ...s.redis.queues.map((q): [string, string] => [
        `queue ${q.name}`,
        `${q.waiting} waiting, ${q.active} active, ${q.delayed} delayed`,
      ]),
    );
  }
  const f = s.figures;
  if (f) {
    out.push(
      ['warehouse', s.dbPath],
      [
        'ledger: cents today (UTC)',
        `${f.spend.cents} in ${f.spend.calls} calls (the service's day ${f.spend.day})`,
      ],
    );
    // Beside Redis's figure (read now, from every process) this one is older and one process's
    // view: the label says which is which, so that two numbers do not read as a contradiction.
    if (f.lastQuota) out.push(['quota remaining (ledger)', ledgerQuotaText(f.lastQuota)]);
  } else if (s.warehouse === 'held')
    out.push(['warehouse', `${s.dbPath} is held by a running sync (${s.warehouseError})`]);
  else if (s.warehouse === 'absent') out.push(['warehouse', `${s.dbPath} does not exist yet`]);
  // Right after the warehouse's rows, now that the lock was read after them.
  if (f?.run) out.push(latestRunRow(f.run, s.liveness));
  // Without Redis the same line, after the warehouse's: the same answer in both modes.
  if (!s.redis) out.push(['state', state]);
  const h = s.holder;
  if (h)
    out.push([
      'writer',
      `${describeHolder(h)}: ${h.state === 'paused' && h.pausedUntil ? `paused for quota until ${h.pausedUntil}` : 'running'}`,
    ]);
  if (!s.redis) out.push(['mode', 'in-process (no Redis): quota state lives in the running sync only']);
  return out;
}

/**
 * The ledger's last quota reading; once its service day is over (the quota was renewed at the
 * service's midnight) not as if current: the ledger keeps no limit, so no figure for now.
 */
function ledgerQuotaText(q: LedgerQuota): string {
  if (q.renewed)
    return `renewed since ${q.resetAt.toISOString()} (the service's day ${q.day} is over; the ledger keeps no limit, so what is left now is not known here): last seen ${q.remaining} on ${q.day}, this warehouse's last call sent ${q.sent}`;
  return `${q.remaining} as the service answered on its day ${q.day} (the lowest; this warehouse's last call sent ${q.sent}); calls since, by any process, are not in it`;
}

/**
 * A run's status as a person should read it: one still marked running whose process is gone
 * (SIGKILL, out of memory) did not finish; one whose lock is another host's may or may not.
 */
function runState(run: LatestRun, liveness: (runId: string) => Liveness): string {
  if (run.status !== 'running') return run.status;
  const l = liveness(run.run_id);
  if (l.state === 'running') return 'running';
  return l.state === 'died' ? 'did not finish (its process ended)' : `running or not: unknown (${l.why})`;
}

/** The latest run's line: `liveness` says whether a run still marked running has a live process. */
function latestRunRow(run: LatestRun, liveness: (runId: string) => Liveness): [string, string] {
  const quarantined = [
    run.quarantined > 0 ? `, quarantined ${run.quarantined}` : '',
    run.failed_jobs > 0 ? `, failed jobs ${run.failed_jobs}` : '',
  ].join('');
  // Stored, but not in the contract tables: a reader of those alone would miss them.
  const apart = run.stored_apart > 0 ? `, stored apart ${run.stored_apart} (overflow tables)` : '';
  return [
    'latest run',
    `${run.run_id} ${runState(run, liveness)}: ${run.calls ?? 0} calls, ${run.cost_cents ?? 0} cents${quarantined}${apart}`,
  ];
}

/**
 * Whether a run is going on (its lease on the queue prefix, or its writer lock on the
 * warehouse) and, if none is, how the last one ended; the governor's pause is the quota's
 * state, which outlives the run that met it.
 */
function stateOf(s: StatusFigures): string {
  const until = s.redis?.pausedUntil;
  const pause = until ? `quota paused until ${until.toISOString()}` : null;
  if (s.runningRunId) return [`running (sync run ${s.runningRunId})`, pause].filter(Boolean).join('; ');
  const last = s.figures?.run;
  // When the warehouse could not be read, its runs are unknown, not absent.
  const ended = !last
    ? s.warehouse !== 'unreadable'
      ? 'no run recorded in this warehouse'
      : 'the last run is unknown (the warehouse could not be read)'
    : last.status === 'running'
      ? notRunning(last.run_id, s.liveness(last.run_id))
      : last.status === 'died'
        ? `the last run ${last.run_id} died (its process ended without closing it; found by the sync of ${last.finished_at})`
        : `the last run ${last.run_id} ended ${last.status} at ${last.finished_at}${quarantinedBy(last)}`;
  return ['no run going on', ended, pause].filter(Boolean).join('; ');
}

/** The last run, marked running, with no live process found here. */
function notRunning(runId: string, l: Liveness): string {
  return l.state === 'unknown'
    ? `the last run ${runId} is marked running; whether its process lives is unknown (${l.why})`
    : `the last run ${runId} did not finish (its process ended; the next sync records it as died)`;
}

/**
 * What the run could not store, beside how it ended (its exit code said it, status says it
 * too): records it received and refused, and apart the jobs that failed (nothing received).
 */
function quarantinedBy(run: LatestRun): string {
  const n = Number(run.quarantined);
  const jobs = Number(run.failed_jobs);
  return [
    n > 0
      ? `, ${n} record${n === 1 ? '' : 's'} quarantined (not stored; \`fragsync quarantine\` lists them)`
      : '',
    jobs > 0 ? `, ${failedJobsText(jobs)}` : '',
    // It completed a full cycle whose earlier runs left records (or failed jobs) open.
    earlierText(run.earlier_in_cycle),
  ].join('');
}

/** What the earlier runs of the run's cycle left open, still not stored: its own clause. */
function earlierText(e: LatestRun['earlier_in_cycle']): string {
  const records =
    e.records > 0
      ? `, ${e.records} record${e.records === 1 ? '' : 's'} earlier runs of its cycle quarantined ${e.records === 1 ? 'is' : 'are'} still not stored (\`fragsync quarantine\` lists them)`
      : '';
  const jobs =
    e.failedJobs > 0
      ? `, ${e.failedJobs} failed job${e.failedJobs === 1 ? '' : 's'} of earlier runs of its cycle`
      : '';
  return records + jobs;
}
