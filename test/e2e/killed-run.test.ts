import { hostname } from 'node:os';
import { describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { DRIVER_MODES } from '../helpers/drivers.ts';
import { fragsync } from '../helpers/cli.ts';
import { governedFiles, lockConfig, queryWarehouse } from '../helpers/governed.ts';
import { spawnSync } from '../helpers/sync-process.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * A sync killed with SIGKILL (as the OOM killer does), on both queue drivers: until the next
 * sync, `fragsync runs` and `fragsync status` say it died rather than that it runs (its writer
 * lock names a pid that is gone; its Redis lease may outlive it by most of a lease); the next
 * sync records it as 'died' with why and the pid, and `runs` gives it no exit code, not the
 * 130 of a Ctrl-C nobody pressed (its real one, 137, was seen by no process that could record it).
 */
const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Job locks on BullMQ: 25 ms answers are renewed well within them, even on a busy machine. */
const LOCK_MS = 5000;

interface RunRow {
  run_id: string;
  ended_utc: string | null;
  cause: string;
  exit_code: number | null;
}

describe.each(DRIVER_MODES)('a sync killed with SIGKILL (%s)', (_name, bullmq) => {
  it('is shown died, not running, then recorded died with no exit code by the next sync', async () => {
    const sim = await startSimulator({ fragrances: 40, seed: 7 });
    // Answers take 25 ms, so the kill lands while work is left.
    sim.setFaults({ latencyMs: 25 });
    const redis = bullmq ? { url: inject('redisUrl'), prefix: uniquePrefix('killed-run') } : undefined;
    const redisFlags = redis ? ['--redis', redis.url, '--queue-prefix', redis.prefix] : [];
    const dbPath = files.path(`killed-${bullmq ? 'bullmq' : 'memory'}.duckdb`);
    // The jobs the killed sync's own worker held are taken by the next sync once their lock
    // lapses (queue.lockMs, 30 s by default): a short lock, so the next sync does not wait.
    const config = redis ? await lockConfig(files.path('lock.json'), LOCK_MS) : files.config;
    const opts = { config, concurrency: 4, redis };
    try {
      const proc = spawnSync(sim, dbPath, opts);
      while (sim.ledger().calls < 5) await sleep(5);
      proc.kill();
      const end = await proc.exited;
      expect(end.signal, end.output).toBe('SIGKILL');

      // Right after the kill, while a BullMQ run's lease is still in Redis: the lease a SIGKILL
      // leaves is not taken for a live run, in the state line as in the latest run's.
      const [text, json] = await Promise.all([
        fragsync(['status', '--db', dbPath, ...redisFlags]),
        fragsync(['status', '--db', dbPath, '--json', ...redisFlags]),
      ]);
      expect(text.code, text.stderr).toBe(EXIT.ok);
      expect(text.stdout).toMatch(/^state\s+no run going on; the last run \S+ did not finish /m);
      expect(text.stdout).not.toMatch(/running \(sync run/);
      expect(JSON.parse(json.stdout)).toMatchObject({
        running: false,
        runningRunId: null,
        latestRun: { status: 'running', processEnded: true },
      });

      const runs = async () => {
        const r = await fragsync(['runs', '--db', dbPath, '--format', 'json']);
        expect(r.code, r.stderr).toBe(EXIT.ok);
        return JSON.parse(r.stdout) as RunRow[];
      };
      const [killed] = await runs();
      expect(killed).toMatchObject({
        cause: 'died',
        exit_code: null,
        ended_utc: 'unknown: its process is gone',
      });
      const status = await fragsync(['status', '--db', dbPath, ...redisFlags]);
      expect(status.code, status.stderr).toBe(EXIT.ok);
      expect(status.stdout).toMatch(
        new RegExp(`^latest run\\s+${killed!.run_id} did not finish \\(its process ended\\): `, 'm'),
      );

      const next = await spawnSync(sim, dbPath, opts).exited;
      expect(next.code, next.output).toBe(EXIT.ok);
      const after = await runs();
      expect(after.map((r) => [r.run_id, r.cause, r.exit_code])).toEqual([
        [after[0]!.run_id, 'completed', EXIT.ok],
        [killed!.run_id, 'died', null],
      ]);
      expect(after[1]!.ended_utc).toMatch(/^unknown: found dead /);
      const [death] = await queryWarehouse<{ found_by: string; reason: string; last: boolean }>(
        dbPath,
        'SELECT found_by, reason, last_call_at IS NOT NULL AS last FROM sync_run_deaths',
      );
      expect(death).toMatchObject({ found_by: after[0]!.run_id, last: true });
      expect(death!.reason).toMatch(
        new RegExp(
          `^its process \\(pid \\d+ on ${hostname().replace(/\./g, '\\.')}\\) ended without closing the run`,
        ),
      );
    } finally {
      await sim.close();
      if (redis) await cleanPrefix(redis.url, redis.prefix);
    }
  }, 60_000);
});
