import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { RunChanges } from '../../src/warehouse/run-changes.ts';
import { baselinePath } from '../../src/warehouse/baseline-file.ts';
import { governedFiles, queryWarehouse, waitFor } from '../helpers/governed.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { BIN, cleanPrefix, startWorker } from '../helpers/worker-process.ts';

/**
 * Ctrl-C while a sync waits at the quota. During the pause the sync lets go of the warehouse
 * file so analysts can read it, which closed the connection holding the run's baseline (a
 * temp table, warehouse/run-changes.ts): the summary then said the run read 0 items new,
 * changed or removed, and dropped its added/changed/removed columns, though it had loaded
 * every fragrance it fetched. A real `fragsync sync --json` against the simulator with a
 * quota that pauses it early and a service day that does not end during the test.
 */
const files = governedFiles();

const rows = async (dbPath: string, table: string) =>
  Number((await queryWarehouse<{ n: number }>(dbPath, `SELECT count(*)::INTEGER AS n FROM ${table}`))[0]!.n);

describe('SIGINT during a quota pause', () => {
  it.concurrent.for(['in-process', 'bullmq'] as const)(
    '%s: the summary counts what the run loaded before the pause',
    { timeout: 120_000 },
    async (driver, { expect }) => {
      // 20 fragrances (seed 21) take about 150 calls: a quota of 100 pauses the run, for an hour.
      const sim = await startSimulator({ fragrances: 20, seed: 21, dailyQuota: 100, daySeconds: 3600 });
      const dbPath = files.path(`sigint-paused-${driver}.duckdb`);
      const redisUrl = inject('redisUrl');
      const prefix = uniquePrefix('sigint-paused');
      const shared = driver === 'bullmq' ? ['--redis', redisUrl, '--queue-prefix', prefix] : [];
      const worker =
        driver === 'bullmq' ? await startWorker(redisUrl, prefix, ['--config', files.config]) : null;
      try {
        const args = ['sync', '--base-url', sim.url, '--db', dbPath, '--config', files.config, '--json'];
        const child = spawn(process.execPath, [BIN, ...args, ...shared], {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FRAGSYNC_API_KEY: 'sim-key' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const stdout: string[] = [];
        child.stdout.on('data', (b: Buffer) => stdout.push(b.toString()));
        const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
        const stderr: string[] = [];
        const paused = new Promise<void>((resolve) => {
          createInterface({ input: child.stderr }).on('line', (line) => {
            stderr.push(line);
            if (line.includes('quota paused until')) resolve();
          });
        });
        await Promise.race([
          paused,
          exited.then((code) => {
            throw new Error(`the sync ended (${code}) before it paused:\n${stderr.join('\n')}`);
          }),
        ]);
        // The file is let go once what was fetched is loaded: read it then, as an analyst would.
        // Within a deadline of its own, well inside the test's, so a sync that never lets go
        // of the file fails here by name. Every 200 ms: each look opens the file.
        const billed = sim.ledger().calls;
        const loaded = async () => (await rows(dbPath, 'api_calls').catch(() => -1)) === billed;
        await waitFor(`the ledger's ${billed} calls readable in the paused warehouse`, loaded, 60_000, 200);
        const fragrances = await rows(dbPath, 'fragrances');
        const reviews = await rows(dbPath, 'reviews');
        expect(fragrances).toBeGreaterThan(0);
        const keptInPause = existsSync(baselinePath(dbPath));

        child.kill('SIGINT');
        expect(await exited, stderr.join('\n')).toBe(EXIT.interrupted);
        const summary = JSON.parse(stdout.join('')) as { status: string; changes: RunChanges | null };
        expect(summary.status).toBe('interrupted');
        // From an empty warehouse every row the run loaded is new: the counts are the tables'.
        expect(summary.changes).not.toBeNull();
        expect(summary.changes!.tables.fragrances).toEqual({ added: fragrances, changed: 0, removed: 0 });
        expect(summary.changes!.tables.reviews!.added).toBe(reviews);
        expect(summary.changes!.items.fragrance).toBeGreaterThanOrEqual(fragrances);
        // The baseline was kept in its file while the file was let go, and only while the run lasted.
        expect(keptInPause).toBe(true);
        expect(existsSync(baselinePath(dbPath))).toBe(false);
      } finally {
        await worker?.stop();
        if (worker) await cleanPrefix(redisUrl, prefix);
        await sim.close();
      }
    },
  );
});
