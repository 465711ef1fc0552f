import { EXIT } from './exit-codes.ts';
import { FORMATS } from './output/format-names.ts';
import type { CommandSpec, OptionSpec } from './spec.ts';
import { SIM_OPTIONS } from './sim-options.ts';

/**
 * Every fragsync command, as data (see spec.ts). Config flags name rows of
 * src/config/bindings.ts, which also holds their variables, config paths and help.
 */

/** The flags of a run: sync and plan read the same, so a plan describes the sync it precedes. */
const RUN_FLAGS = [
  'base-url',
  'db',
  'objective',
  'max-cents',
  'max-cents-per-day',
  'reserve',
  'reserve-percent',
  'reviews',
  'review-digest',
  'full',
] as const;

const { ok, unexpected, badInput } = EXIT;

/** How `fragsync query` prints a result; `fragsync quarantine` prints its listing the same way. */
const QUERY_OUTPUT: readonly OptionSpec[] = [
  {
    flags: '--format <FORMAT>',
    help: 'table (DuckDB shell style), csv (RFC 4180), json (one array), jsonl (an object per line) or markdown',
    choices: FORMATS,
    default: 'table',
  },
  { flags: '--json', help: 'same as --format jsonl (one JSON object per row)' },
  {
    flags: '--max-rows <N>',
    help: 'print at most N rows, 0 for all (default: 40 for a table, all otherwise)',
    int: { min: 0 },
  },
  {
    flags: '--width <N>',
    help: `table width in columns (default: the terminal's, else $COLUMNS, else 160)`,
    int: { min: 20 },
  },
];

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'sync',
    summary: 'mirror the catalogue into the warehouse',
    description: `Mirrors the catalogue of the Fragrance Data Service into the DuckDB warehouse.
The API key comes from FRAGSYNC_API_KEY. With --redis (or REDIS_URL) the run is shared
with \`fragsync worker\` processes; without, every job runs in this process. On a terminal
it keeps one live progress line; elsewhere it writes that line every 10 seconds.
Ctrl-C (or SIGTERM) stops it cleanly: no new calls, the requests in flight finish and are
loaded, the summary is printed, exit 130; a second Ctrl-C stops it at once.`,
    config: [
      ...RUN_FLAGS,
      'redis',
      'concurrency',
      'no-wait',
      'queue-prefix',
      'spool-dir',
      'parquet',
      'log-level',
    ],
    options: [{ flags: '--json', help: 'print the final summary as one JSON document on stdout' }],
    exits: Object.values(EXIT),
    examples: [
      'FRAGSYNC_API_KEY=... fragsync sync --base-url https://api.example.com --max-cents 500',
      'fragsync sync --base-url URL --no-wait --json > run.json   # cron: stop at the quota',
    ],
    load: () => import('./commands/sync.ts'),
  },
  {
    name: 'plan',
    summary: 'print the calls and cents the next sync would spend (spends nothing)',
    description: `Prints the calls per endpoint, cents and quota units the next sync would spend, from
the warehouse and the config, and whether it fits the quota and the budget. It reads the
warehouse read-only and never sends a request. --json prints the same as one JSON object
(docs/cli.md "Machine output").`,
    config: RUN_FLAGS,
    options: [{ flags: '--json', help: 'print the plan as one JSON object on stdout' }],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/plan.ts'),
  },
  {
    name: 'worker',
    summary: 'run a worker process on a shared Redis',
    description: `Runs fetch jobs of the run that \`fragsync sync --redis URL\` enqueued, sharing the
quota governor with every other process on that Redis. The run's caps and reserve come
from the sync that enqueued it. It never writes the warehouse: results go back to the
sync process that owns it. It also runs the slots of \`fragsync schedule\` (one \`fragsync sync\`
process each). Stops on SIGINT/SIGTERM after the jobs in hand finish.`,
    config: ['redis', 'base-url', 'concurrency', 'queue-prefix', 'spool-dir', 'log-level'],
    options: [
      {
        flags: '--heartbeat <FILE>',
        help: 'renew FILE every 10 s while Redis answers (for `fragsync health` in a container)',
      },
    ],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/worker.ts'),
  },
  {
    name: 'schedule',
    summary: 'install, show or remove the nightly sync as a BullMQ job scheduler',
    description: `Installs (set), shows (show) or removes (remove) a BullMQ job scheduler on the queue
prefix that runs \`fragsync sync\` with the flags given to \`set\`, on a cron pattern in a time
zone, in \`fragsync worker\` processes: one run per slot; a slot due while a run goes on is
skipped; slots missed in a downtime run once. \`show --db FILE\` adds the last runs.`,
    args: [{ name: 'action', help: 'set, show or remove', required: true }],
    config: [...RUN_FLAGS, 'redis', 'queue-prefix', 'no-wait', 'concurrency', 'parquet'],
    options: [
      { flags: '--cron <PATTERN>', help: 'cron pattern (set): 5 fields, or 6 with seconds first' },
      { flags: '--tz <ZONE>', help: 'IANA time zone of the pattern (set; default UTC)' },
    ],
    exits: [ok, unexpected, badInput],
    examples: [
      'fragsync schedule set --redis URL --cron "0 2 * * *" --tz Europe/Paris --base-url URL --db FILE',
      'fragsync schedule show --redis URL --db FILE',
    ],
    load: () => import('./commands/schedule.ts'),
  },
  {
    name: 'status',
    summary: 'show quota, budget, pause state and queue depths',
    description: `Shows the quota (limit, remaining, reset, reserve), whether work is paused, queue
depths, and the cents spent today and in the latest run. Reads the shared state in Redis
when --redis is given, and the warehouse when no sync holds it open. Spends nothing.
--json prints the same figures as one JSON object (docs/cli.md "Machine output").`,
    config: ['redis', 'db', 'queue-prefix', 'reserve', 'reserve-percent'],
    options: [{ flags: '--json', help: 'print the figures as one JSON object on stdout (null: not read)' }],
    examples: ['fragsync status --db FILE --json | jq .latestRun.exitCode'],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/status.ts'),
  },
  {
    name: 'query',
    summary: 'run one read-only SQL query on the warehouse',
    description: `Runs one read-only SQL query on the warehouse (one statement: several are refused).
The SQL comes from the argument, from --file, or from standard input (an argument of -, or
none on a pipe). A table shows column names and types, NULL as NULL, values cut to the
terminal's width, and the first and last 20 rows of a longer result with a note; --format
csv, json, jsonl or markdown print every row (unless --max-rows).`,
    args: [{ name: 'sql', help: 'the query; - reads it from standard input' }],
    config: ['db'],
    options: [{ flags: '-f, --file <FILE>', help: 'read the SQL from FILE' }, ...QUERY_OUTPUT],
    examples: [
      `fragsync query "SELECT name, brand, score FROM fragrances ORDER BY score DESC LIMIT 5"`,
      'fragsync query --format csv "SELECT * FROM brands" > brands.csv',
      'fragsync query -f report.sql --format markdown',
      'echo "SELECT count(*) FROM reviews" | fragsync query',
    ],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/query.ts'),
  },
  {
    name: 'runs',
    summary: 'list past runs: when, how long, why they ended, calls and cents',
    description: `Lists the latest runs recorded in the warehouse's sync_runs table, newest first: start
and end (UTC), duration, the cause the run ended with and the exit code it gave, calls and
cents (from the ledger, api_calls), and the other columns this warehouse keeps per run.
The cause is the run's status (completed, interrupted, budget_exhausted...), running for a
run going on, died for one whose process ended without closing it (SIGKILL, out of memory;
the next sync records it so; no exit code), or unknown for one marked running whose writer
lock is another host's (not checkable from here; why goes to stderr).
Reads the warehouse read-only.`,
    config: ['db'],
    options: [
      { flags: '--limit <N>', help: 'the latest N runs, 0 for all', int: { min: 0 }, default: 20 },
      {
        flags: '--format <FORMAT>',
        help: 'table, csv, json, jsonl or markdown',
        choices: FORMATS,
        default: 'table',
      },
      { flags: '--json', help: 'same as --format json (one array of the runs)' },
      { flags: '--width <N>', help: "table width in columns (default: the terminal's)", int: { min: 20 } },
    ],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/runs.ts'),
  },
  {
    name: 'quarantine',
    summary: 'list the records a sync could not store; --revalidate loads those that now pass',
    description: `Lists the records in quarantine, newest first: what a sync received but could not store
(a missing key, a wrong type), with the endpoint, the key, the reason and when, and the jobs
that failed (scope job: nothing received, to fetch again by the next sync); --payload adds
the payload as the service sent it, --all the rows already closed (released: stored since;
superseded: a later answer of the same record stands for it). --revalidate checks every
pending record again with this version's schemas and loads those that now pass (a stored
answer is played back through the job that read it: no call is made), then says how many
were released and how many remain (with --json, as one object). A sync that quarantined
anything exits 8.`,
    config: ['db'],
    options: [
      { flags: '--payload', help: 'add the payload as received (JSON)' },
      { flags: '--all', help: 'also the rows already released or superseded' },
      { flags: '--revalidate', help: 'check every pending record again; load those that now pass' },
      ...QUERY_OUTPUT,
    ],
    examples: [
      'fragsync quarantine',
      'fragsync quarantine --payload --format json',
      'fragsync quarantine --revalidate   # after an upgrade',
    ],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/quarantine.ts'),
  },
  {
    name: 'export',
    summary: 'write the contract tables to Parquet',
    description: `Writes every contract table to DIR/<table>.parquet (contract columns, no lineage), from one
consistent snapshot. Files are written into a temporary sibling folder and renamed to DIR
when complete, so readers never see a partial export. DIR must be new, empty, or an earlier
export (only <table>.parquet files), which is replaced; a folder holding anything else is
refused (exit 2): an export never deletes a file it did not write.`,
    config: ['parquet', 'db'],
    options: [
      { flags: '--json', help: 'print one JSON object: the folder, and the rows of each table written' },
    ],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/export.ts'),
  },
  {
    name: 'dashboard',
    summary: 'serve a read-only dashboard: quota, spend, pauses, runs, freshness, quarantine, queues',
    description: `Serves one page of our own (quota left and its reset, spend today against the caps, the
pause state, the last runs, freshness per dataset, quarantined records) and bull-board for
the queues, read-only. It reads Redis and opens the warehouse read-only for each look; while
a sync holds the warehouse the page says so and shows what it read last. Bound to 127.0.0.1
unless --host says otherwise; basic auth when FRAGSYNC_DASHBOARD_USER and
FRAGSYNC_DASHBOARD_PASSWORD are set (in the environment only).`,
    // The caps and reserve to show when no run is going on (a run's own come from Redis).
    config: ['redis', 'db', 'queue-prefix', 'max-cents', 'max-cents-per-day', 'reserve', 'reserve-percent'],
    options: [
      {
        flags: '--host <ADDR>',
        help: 'address to listen on (0.0.0.0: every interface)',
        default: '127.0.0.1',
      },
      { flags: '--port <N>', help: 'port to listen on (0: a free one)', int: { min: 0 }, default: 8700 },
    ],
    examples: ['fragsync dashboard --redis redis://localhost:6379 --db data/fragsync.duckdb'],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/dashboard.ts'),
  },
  {
    name: 'sim',
    summary: 'run the local Fragrance Data Service',
    description: `Runs the project's own implementation of the Fragrance Data Service until SIGINT or
SIGTERM (or, started with an IPC channel, until the process that started it ends). The first
line on stdout is exactly \`listening on <url>\`.`,
    options: SIM_OPTIONS,
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/sim.ts'),
  },
  {
    name: 'demo',
    summary: 'start the local service and run a full sync into ./data',
    description: `Starts the local Fragrance Data Service, syncs it into DIR (default ./data), exports
Parquet and answers a sample analyst query.`,
    options: [
      { flags: '--fragrances <N>', help: 'catalogue size', int: { min: 1 }, default: 2000 },
      { flags: '--data <DIR>', help: 'folder of the warehouse and the Parquet export', default: 'data' },
    ],
    exits: Object.values(EXIT),
    load: () => import('./commands/demo.ts'),
  },
  {
    name: 'health',
    summary: 'a container healthcheck: a worker heartbeat, a URL',
    description: `Exits 0 when every check given passes, 1 otherwise (with one line saying why): the
heartbeat file of \`fragsync worker --heartbeat FILE\` was renewed in the last --max-age seconds
(a worker renews it every 10 seconds while its Redis answers), and the URL answers HTTP.`,
    options: [
      { flags: '--heartbeat <FILE>', help: 'the heartbeat file of a worker' },
      {
        flags: '--max-age <SECONDS>',
        help: 'oldest heartbeat that is still healthy',
        int: { min: 1 },
        default: 30,
      },
      { flags: '--url <URL>', help: 'an address that must answer HTTP (any status below 500)' },
    ],
    exits: [ok, unexpected, badInput],
    load: () => import('./commands/health.ts'),
  },
  {
    name: 'completion',
    summary: 'print a shell completion script (bash or zsh)',
    description: `Prints a completion script for the commands and options of this fragsync. Load it with
\`source <(fragsync completion bash)\` in ~/.bashrc, or
\`source <(fragsync completion zsh)\` in ~/.zshrc.`,
    args: [{ name: 'shell', help: 'bash or zsh', required: true }],
    exits: [ok, badInput],
    load: () => import('./completion.ts'),
  },
];

export function commandNamed(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
