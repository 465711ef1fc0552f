import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { deletePrefix } from './redis-server.ts';

/** Real `fragsync worker` processes for end-to-end tests. */
export const BIN = fileURLToPath(new URL('../../bin/fragsync.js', import.meta.url));

export interface WorkerProc {
  child: ChildProcess;
  output: string[];
  stop(): Promise<void>;
}

/** A `fragsync worker` process on the given Redis and queue prefix, once it waits for jobs. */
export async function startWorker(
  redisUrl: string,
  prefix: string,
  extra: string[] = [],
): Promise<WorkerProc> {
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--redis', redisUrl, '--queue-prefix', prefix, '--log-level', 'warn', ...extra],
    { env: { ...process.env, FRAGSYNC_API_KEY: 'sim-key' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  child.stdout?.on('data', (b: Buffer) => output.push(b.toString()));
  child.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output.join('')}`)), 20_000);
    child.stdout?.on('data', () => {
      if (output.join('').includes('waiting for jobs')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    child,
    output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `n` worker processes with the same flags, once each waits for jobs. */
export function startWorkers(
  n: number,
  redisUrl: string,
  prefix: string,
  extra: string[],
): Promise<WorkerProc[]> {
  return Promise.all(Array.from({ length: n }, () => startWorker(redisUrl, prefix, extra)));
}

/** Job attempts a stopped worker reported in its last line. */
export function attemptsOf(w: WorkerProc): number {
  return Number(/after (\d+) job attempts/.exec(w.output.join(''))?.[1] ?? 0);
}

/** Delete every key under our prefix (never FLUSHALL a Redis others may use). */
export async function cleanPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  await deletePrefix(redis, prefix);
  redis.disconnect();
}

/** Bytes in the spool files of worker process `pid` (test/global-setup.ts names the folder). */
export function spoolBytes(prefix: string, pid: number): number {
  const dir = join(process.env.FRAGSYNC_SPOOL_DIR ?? '', prefix);
  const mine = `${encodeURIComponent(hostname())}~${pid}-`;
  let bytes = 0;
  try {
    for (const f of readdirSync(dir)) if (f.startsWith(mine)) bytes += statSync(join(dir, f)).size;
  } catch {
    // not created yet
  }
  return bytes;
}
