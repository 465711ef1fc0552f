import { existsSync } from 'node:fs';
import { Queue } from 'bullmq';
import { oneLine } from '../../errors.ts';
import { createRedisGovernor } from '../../governor/index.ts';
import type { GovernorStatus } from '../../governor/types.ts';
import { FETCH_QUEUE, LOAD_QUEUE } from '../../queue/fetch-worker.ts';
import { connectRedis, governorLimits } from '../../sync/runtime.ts';
import { createLogger } from '../../util/logger.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const out: [string, string][] = [];
  const fmt = (d: Date | null) => (d ? d.toISOString() : '-');

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
        ['quota limit', s.limit === null ? 'unknown (no call seen yet)' : String(s.limit)],
        ['quota remaining', s.remaining === null ? 'unknown' : String(s.remaining)],
        ['quota resets at', fmt(s.resetAt)],
        ['reserve (calls)', String(s.reserve)],
        [
          'state',
          s.pausedUntil && s.pausedUntil > new Date() ? `paused until ${fmt(s.pausedUntil)}` : 'running',
        ],
        ['calls in flight', String(s.inFlight)],
        ['cents spent today', String(s.centsToday)],
        ['cents this run', String(s.centsThisRun)],
      );
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

  if (existsSync(config.dbPath)) {
    try {
      const wh = await Warehouse.open(config.dbPath, { readOnly: true });
      try {
        const today = new Date().toISOString().slice(0, 10);
        const spend = await wh.spendOnDay(today);
        const [last] = await wh.query<{ at: string; remaining: number | null }>(
          'SELECT CAST(at AS VARCHAR) AS at, quota_remaining AS remaining FROM api_calls ORDER BY at DESC LIMIT 1',
        );
        const [run] = await wh.query<{ run_id: string; status: string; calls: number; cost_cents: number }>(
          'SELECT run_id, status, calls, cost_cents FROM sync_runs ORDER BY started_at DESC LIMIT 1',
        );
        out.push(
          ['warehouse', config.dbPath],
          ['ledger: cents today (UTC)', `${spend.cents} in ${spend.calls} calls`],
        );
        if (last) out.push(['last seen quota remaining', `${last.remaining ?? 'unknown'} at ${last.at}`]);
        if (run)
          out.push([
            'latest run',
            `${run.run_id} ${run.status}: ${run.calls ?? 0} calls, ${run.cost_cents ?? 0} cents`,
          ]);
      } finally {
        await wh.close();
      }
    } catch (err) {
      out.push(['warehouse', `not readable now (${oneLine(err)})`]);
    }
  } else {
    out.push(['warehouse', `${config.dbPath} does not exist yet`]);
  }
  if (!config.redisUrl)
    out.push(['mode', 'in-process (no Redis): quota state lives in the running sync only']);
  const w = Math.max(...out.map(([k]) => k.length));
  for (const [k, v] of out) console.log(`${k.padEnd(w)}  ${v}`);
  return EXIT.ok;
}
