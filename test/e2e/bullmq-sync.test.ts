import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';

const BIN = fileURLToPath(new URL('../../bin/fragsync.js', import.meta.url));

export interface WorkerProc {
  child: ChildProcess;
  output: string[];
  stop(): Promise<void>;
}

/** A real `fragsync worker` process on the test's Redis and queue prefix. */
export async function startWorker(
  redisUrl: string,
  prefix: string,
  extra: string[] = [],
): Promise<WorkerProc> {
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--redis', redisUrl, '--queue-prefix', prefix, '--log-level', 'warn', ...extra],
    {
      env: { ...process.env, FRAGSYNC_API_KEY: 'sim-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
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

export async function cleanPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

describe('full sync, BullMQ driver with two worker processes', () => {
  it('shares the work and mirrors the catalogue exactly, ledger equal to the service', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('bullmq');
    const sim = await startSimulator({ fragrances: 150, seed: 11 });
    sim.setFaults({ errorRate: 0.02, resetRate: 0.02, truncateRate: 0.01 });
    const workers = [await startWorker(redisUrl, prefix), await startWorker(redisUrl, prefix)];
    try {
      const dbPath = join(dir.path, 'bullmq.duckdb');
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { redis: redisUrl, 'queue-prefix': prefix },
      });
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));
      const processed = workers.map((w) =>
        Number(/after (\d+) job attempts/.exec(w.output.join(''))?.[1] ?? 0),
      );
      // Both worker processes took part.
      expect(processed[0]).toBeGreaterThan(0);
      expect(processed[1]).toBeGreaterThan(0);
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ours = await warehouseLedger(dbPath);
      expect(ours.calls).toBe(sim.ledger().calls);
      expect(ours.billable).toBe(sim.ledger().cents);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await sim.close();
      await cleanPrefix(redisUrl, prefix);
    }
  });
});
