import { existsSync } from 'node:fs';
import { oneLine } from '../../errors.ts';
import {
  removeSchedule,
  setSchedule,
  showSchedule,
  slotRecords,
  type ScheduleInfo,
} from '../../queue/schedule.ts';
import { connectRedis } from '../../sync/runtime.ts';
import { runHistorySql } from '../../warehouse/run-history.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

/**
 * `fragsync schedule set|show|remove`: the nightly as a BullMQ job scheduler on the queue
 * prefix, run by `fragsync worker` (queue/schedule.ts). `set` stores the sync flags given to
 * it (never the key: each worker's environment has it) for the workers' syncs.
 */

/** Flags that say where the schedule lives, not how the sync runs: not stored with it. */
const NOT_SYNC_FLAGS = new Set(['redis', 'queue-prefix', 'config']);

const who = 'fragsync schedule';

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const action = input.args[0];
  if (action !== 'set' && action !== 'show' && action !== 'remove') {
    console.error(`${who}: unknown action '${action}': set, show or remove`);
    return EXIT.badInput;
  }
  if (!config.redisUrl) {
    console.error(`${who}: config: redisUrl is required (--redis URL or REDIS_URL)`);
    return EXIT.badInput;
  }
  const cron = input.opts.cron as string | undefined;
  const tz = (input.opts.tz as string | undefined) ?? 'UTC';
  if (action === 'set') {
    if (!cron) {
      console.error(`${who}: set needs --cron PATTERN (e.g. --cron "0 2 * * *")`);
      return EXIT.badInput;
    }
    if (!validZone(tz)) {
      console.error(`${who}: --tz ${tz} is not a time zone (an IANA name such as Europe/Paris, or UTC)`);
      return EXIT.badInput;
    }
  }
  let redis;
  try {
    redis = await connectRedis(config.redisUrl);
  } catch (err) {
    console.error(`${who}: ${oneLine(err)}`);
    return EXIT.badInput;
  }
  const prefix = config.queue.prefix;
  try {
    if (action === 'set') {
      let info: ScheduleInfo | null;
      try {
        info = await setSchedule(
          redis,
          prefix,
          { pattern: cron as string, tz },
          { syncArgs: syncArgs(input) },
        );
      } catch (err) {
        console.error(`${who}: --cron '${cron}' was refused: ${oneLine(err)}`);
        return EXIT.badInput;
      }
      console.log(`schedule set on queue prefix '${prefix}'`);
      if (info) printSchedule(info);
      return EXIT.ok;
    }
    if (action === 'remove') {
      const removed = await removeSchedule(redis, prefix);
      console.log(
        removed
          ? `schedule removed from queue prefix '${prefix}'`
          : `no schedule on queue prefix '${prefix}'`,
      );
      return EXIT.ok;
    }
    const info = await showSchedule(redis, prefix);
    if (!info) console.log(`no schedule on queue prefix '${prefix}' (fragsync schedule set --cron ...)`);
    else printSchedule(info);
    const slots = await slotRecords(redis, prefix, 10);
    if (slots.length > 0) console.log('\nlast slots (newest first):');
    for (const s of slots)
      console.log(
        `  ${new Date(s.slotMs).toISOString()}  ${s.outcome === 'ran' ? `ran, exit ${s.code ?? '?'}` : `skipped (${s.busyWith} still going)`}  ${s.startedAt} → ${s.endedAt}  on ${s.worker}`,
      );
    if (input.config && typeof input.flags?.db === 'string') return await printRuns(config.dbPath);
    return EXIT.ok;
  } catch (err) {
    console.error(`${who}: ${oneLine(err)}`);
    return EXIT.unexpected;
  } finally {
    redis.disconnect();
  }
}

function printSchedule(info: ScheduleInfo): void {
  console.log(`pattern   ${info.pattern}`);
  console.log(`time zone ${info.tz}`);
  console.log(`next run  ${info.next ? info.next.toISOString() : '-'}`);
  console.log(`sync      fragsync sync ${info.syncArgs.join(' ')}`.trimEnd());
}

/** The last runs of the warehouse (`--db`), as `fragsync runs` shows them. */
async function printRuns(dbPath: string): Promise<number> {
  if (!existsSync(dbPath)) {
    console.log(`\nno warehouse at ${dbPath} yet`);
    return EXIT.ok;
  }
  try {
    const wh = await Warehouse.open(dbPath, { readOnly: true });
    try {
      const rows = await wh.query<Record<string, unknown>>(runHistorySql({ limit: 5, extra: [] }));
      console.log('\nlast runs (sync_runs):');
      for (const r of rows)
        console.log(
          `  ${r.run_id}  ${r.started_utc} → ${r.ended_utc ?? '-'}  ${r.cause}  ${r.calls ?? 0} calls`,
        );
    } finally {
      await wh.close();
    }
    return EXIT.ok;
  } catch (err) {
    console.error(`${who}: cannot read the runs of ${dbPath}: ${oneLine(err)}`);
    return EXIT.badInput;
  }
}

/** The sync flags given on this command line, as the worker will pass them to `fragsync sync`. */
function syncArgs(input: CommandInput): string[] {
  const out: string[] = [];
  for (const [flag, value] of Object.entries(input.flags ?? {})) {
    if (NOT_SYNC_FLAGS.has(flag) || value === undefined || value === false) continue;
    out.push(`--${flag}`);
    if (value !== true) out.push(value);
  }
  return out;
}

function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
