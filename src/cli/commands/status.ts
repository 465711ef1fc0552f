import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Queue } from 'bullmq';
import { ConfigError, isFragsyncError, oneLine } from '../../errors.ts';
import { createRedisGovernor } from '../../governor/index.ts';
import type { GovernorStatus } from '../../governor/types.ts';
import { FETCH_QUEUE, LOAD_QUEUE } from '../../queue/fetch-worker.ts';
import { leaseKey } from '../../queue/lease.ts';
import { connectRedis, governorLimits } from '../../sync/runtime.ts';
import { createLogger } from '../../util/logger.ts';
import { checkCreatableDir } from '../../util/writable-dir.ts';
import { latestRunRow, warehouseStatus, type LatestRun } from '../../warehouse/status.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { describeHolder, lockHolder, type LockHolder } from '../../warehouse/writer-lock.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const out: [string, string][] = [];
  const fmt = (d: Date | null) => (d ? d.toISOString() : '-');
  let redisState: { pausedUntil: Date | null; lease: string | null } | null = null;
  let last: LatestRun | undefined;

  if (config.redisUrl) {
    try {
      const redis = await connectRedis(config.redisUrl);
      const gov = createRedisGovernor(redis, {
        prefix: config.queue.prefix,
        limits: governorLimits(config),
        logger: createLogger('silent'),
      });
      const s: GovernorStatus = await gov.status();
      out.push(
        [
          'quota limit (Redis)',
          s.limit === null ? 'unknown (no call seen through this Redis yet)' : String(s.limit),
        ],
        [
          'quota remaining (Redis)',
          s.remaining === null
            ? 'unknown (no answer seen since the last reset)'
            : `${s.remaining} now: the lowest the service reported this quota day to any process sharing this Redis`,
        ],
        ['quota resets at', fmt(s.resetAt)],
        ['reserve (calls)', String(s.reserve)],
        // Filled in once the warehouse and the writer lock have said whether a run is going on.
        ['state', ''],
        ['calls in flight', String(s.inFlight)],
        // Redis's own count: syncs that ran without this Redis are only in the ledger's line.
        ['cents spent today (Redis)', `${s.centsToday} by syncs sharing this Redis`],
        ['cents this run', String(s.centsThisRun)],
      );
      redisState = {
        pausedUntil: s.pausedUntil && s.pausedUntil > new Date() ? s.pausedUntil : null,
        lease: await redis.get(leaseKey(config.queue.prefix)),
      };
      for (const name of [FETCH_QUEUE, LOAD_QUEUE]) {
        const q = new Queue(name, { connection: redis, prefix: config.queue.prefix });
        const c = await q.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
        out.push([
          `queue ${name}`,
          `${(c.waiting ?? 0) + (c.prioritized ?? 0)} waiting, ${c.active ?? 0} active, ${c.delayed ?? 0} delayed`,
        ]);
        await q.close();
      }
      await gov.close();
      redis.disconnect();
    } catch (err) {
      console.error(`fragsync status: ${oneLine(err)}`);
      return EXIT.badInput;
    }
  }

  let failure: string | null = null;
  // A run marked running is going on while its lease or writer lock is held (a process that
  // died holds neither). The lock is read before the warehouse and again after, so a run that
  // starts or ends meanwhile is not taken for a dead one.
  const before = lockHolder(config.dbPath);
  if (existsSync(config.dbPath)) {
    try {
      const wh = await Warehouse.open(config.dbPath, { readOnly: true });
      try {
        const { rows, run } = await warehouseStatus(wh, config.dbPath);
        out.push(...rows);
        last = run;
      } finally {
        await wh.close();
      }
    } catch (err) {
      // A sync holding the file is a state worth showing, not a failure of `status`.
      if (isFragsyncError(err) && err.code === 'WAREHOUSE_LOCKED')
        out.push(['warehouse', `${config.dbPath} is held by a running sync (${oneLine(err)})`]);
      else failure = `cannot read the warehouse ${config.dbPath}: ${oneLine(err)}`;
    }
  } else {
    // Not there yet, unless no sync could ever create it there (plan says the same).
    try {
      checkCreatableDir(dirname(resolve(config.dbPath)), 'dbPath');
    } catch (err) {
      console.error(`fragsync status: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
      return EXIT.badInput;
    }
    out.push(['warehouse', `${config.dbPath} does not exist yet`]);
  }
  // Without Redis the quota state lives in the sync's process, but its writer lock says which
  // run is going on and whether it is waiting for the quota reset (a backfill may wait hours).
  const holder = lockHolder(config.dbPath);
  const holds = (h: LockHolder | null, runId: string) =>
    h !== null && (h.runId === runId || h.runId === 'unknown');
  const going = (runId: string) =>
    redisState?.lease === runId || holds(before, runId) || holds(holder, runId);
  // Right after the warehouse's rows, now that the lock was read after them.
  if (last) out.push(latestRunRow(last, going));
  const state = stateOf(redisState, holder?.runId ?? null, last, going, failure === null);
  const row = out.find(([k]) => k === 'state');
  if (row) row[1] = state;
  // Without Redis the same line, after the warehouse's: the same answer in both modes.
  else out.push(['state', state]);
  if (holder)
    out.push([
      'writer',
      `${describeHolder(holder)}: ${holder.state === 'paused' && holder.pausedUntil ? `paused for quota until ${holder.pausedUntil}` : 'running'}`,
    ]);
  if (!config.redisUrl)
    out.push(['mode', 'in-process (no Redis): quota state lives in the running sync only']);
  const w = Math.max(...out.map(([k]) => k.length));
  for (const [k, v] of out) console.log(`${k.padEnd(w)}  ${v}`);
  if (failure === null) return EXIT.ok;
  console.error(`fragsync status: ${failure}`);
  return EXIT.unexpected;
}

/**
 * Whether a run is going on (its lease on the queue prefix, or its writer lock on the
 * warehouse) and, if none is, how the last one ended; the governor's pause is the quota's
 * state, which outlives the run that met it.
 */
function stateOf(
  redis: { pausedUntil: Date | null; lease: string | null } | null,
  writer: string | null,
  last: LatestRun | undefined,
  isGoing: (runId: string) => boolean,
  /** False when the warehouse could not be read: its runs are unknown, not absent. */
  read: boolean,
): string {
  const pause = redis?.pausedUntil ? `quota paused until ${redis.pausedUntil.toISOString()}` : null;
  const going =
    redis?.lease ??
    writer ??
    (last && last.status === 'running' && isGoing(last.run_id) ? last.run_id : null);
  if (going) return [`running (sync run ${going})`, pause].filter(Boolean).join('; ');
  const ended = !last
    ? read
      ? 'no run recorded in this warehouse'
      : 'the last run is unknown (the warehouse could not be read)'
    : last.status === 'running'
      ? `the last run ${last.run_id} did not finish (its process ended; the next sync closes it as interrupted)`
      : `the last run ${last.run_id} ended ${last.status} at ${last.finished_at}${quarantinedBy(last)}`;
  return ['no run going on', ended, pause].filter(Boolean).join('; ');
}

/** What the run could not store, beside how it ended: its exit code said it (8), status says it too. */
function quarantinedBy(run: LatestRun): string {
  const n = Number(run.quarantined);
  if (n === 0) return '';
  return `, ${n} record${n === 1 ? '' : 's'} quarantined (not stored; \`fragsync quarantine\` lists them)`;
}
