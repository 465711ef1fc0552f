import { spawn, type ChildProcess } from 'node:child_process';
import { EXIT } from './exit-codes.ts';

/**
 * One scheduled sync (fragsync schedule), started by a worker: `fragsync sync` in a process
 * of its own, with the flags stored with the schedule, this worker's Redis and queue prefix
 * (its jobs are fetched by the workers of that prefix, this one too), and this worker's
 * environment, which holds the key. Its output goes to the worker's. Resolves with its exit
 * code. A process of its own keeps the sync's warehouse, memory and signals apart from the
 * worker's, exactly as cron would run it.
 */
/** The scheduled syncs this process runs now (one at most: the schedule worker takes one job). */
const running = new Set<ChildProcess>();

/**
 * The worker stops: its scheduled sync is told to drain (SIGTERM: the jobs in hand finish and
 * are loaded, exit 130), rather than the worker waiting for a run that may last hours.
 */
export function stopScheduledSyncs(): void {
  for (const child of running) child.kill('SIGTERM');
}

export function runScheduledSync(
  syncArgs: readonly string[],
  redisUrl: string,
  prefix: string,
): Promise<number> {
  const bin = process.argv[1] as string;
  const args = [...process.execArgv, bin, 'sync', ...syncArgs, '--redis', redisUrl, '--queue-prefix', prefix];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: process.env,
    });
    running.add(child);
    const done = (code: number) => {
      running.delete(child);
      resolve(code);
    };
    child.once('error', () => done(EXIT.unexpected));
    child.once('exit', (code, signal) => done(code ?? (signal ? 128 + 15 : EXIT.unexpected)));
  });
}
