import { beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  queryWarehouse,
} from '../helpers/governed.ts';
import { expectDrained, interruptOnce, serviceQuiet } from '../helpers/interrupt.ts';
import { expectRepeatsWithin } from '../helpers/repeats.ts';
import { spawnSync, type SyncProcOptions } from '../helpers/sync-process.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, startWorker, type WorkerProc } from '../helpers/worker-process.ts';

/**
 * Ctrl-C ×10 (issue 14 items 4 and 10): `fragsync sync` interrupted by SIGINT at ten random
 * points of one cycle, on both drivers, against the simulator with 40 ms answers; then one
 * sync to the end. Every interrupt drains (exit 130, the partial summary, no native abort)
 * and leaves api_calls equal to the service's ledger; the mirror ends exact, and the paid
 * calls repeated are printed against the calls in flight at the interrupts (and must not
 * exceed them: the drain lets those finish and loads them, so it should be none).
 */

const CATALOGUE = { fragrances: 600, seed: 1515 };
const LATENCY_MS = 40;
const CONCURRENCY = 3;
const INTERRUPTS = 10;

const files = governedFiles();

let clean: { calls: number; cents: number; paid: string[] };
beforeAll(async () => {
  clean = await cleanRunCalls(
    () => startSimulator({ ...CATALOGUE, recordPaid: true }),
    files.path('clean.duckdb'),
    files.config,
  );
});

describe.each(['memory', 'bullmq'] as const)('faults: SIGINT ×%s', (driver) => {
  it(`${INTERRUPTS} interrupts at random points (${driver}): each drains, exact at the end, repeats within the calls in flight`, async () => {
    const q =
      driver === 'bullmq' ? { url: inject('redisUrl'), prefix: uniquePrefix('fault-sigint') } : undefined;
    const opts: SyncProcOptions = { config: files.config, concurrency: CONCURRENCY, redis: q };
    // BullMQ: a worker in another process fetches too; each interrupt must stop it as well.
    let worker: WorkerProc | null = null;
    if (q) worker = await startWorker(q.url, q.prefix, ['--concurrency', String(CONCURRENCY)]);
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    sim.setFaults({ latencyMs: LATENCY_MS });
    const dbPath = files.path(`sigint-${driver}.duckdb`);
    const inFlight: number[] = [];
    const delays: number[] = [];
    try {
      for (let i = 0; i < INTERRUPTS; i++) {
        const delayMs = Math.floor(Math.random() * 1500);
        const r = await interruptOnce(sim, dbPath, opts, delayMs);
        expect(r.inTime, `interrupt ${i + 1} came after the run ended: ${r.end.output}`).toBe(true);
        expectDrained(r.end);
        await serviceQuiet(sim);
        // Every call of the interrupted run, in flight ones included, is in the warehouse.
        await expectLedgerEqual(sim, dbPath);
        delays.push(delayMs);
        inFlight.push(r.inFlight);
      }
      const end = await spawnSync(sim, dbPath, opts).exited;
      expect(end.code, end.output).toBe(EXIT.ok);
      await worker?.stop();
      worker = null;

      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      const runs = await queryWarehouse<{ status: string }>(
        dbPath,
        'SELECT status FROM sync_runs ORDER BY started_at',
      );
      expect(runs.map((r) => r.status)).toEqual([...Array(INTERRUPTS).fill('interrupted'), 'completed']);
      const total = inFlight.reduce((a, b) => a + b, 0);
      const report = `in flight at the interrupts: ${inFlight.join(', ')} (sum ${total}); delays after the first answers ${delays.join(', ')} ms`;
      // Nothing the clean run bought left unbought; repeats within the calls in flight.
      const { dup, kinds } = expectRepeatsWithin(sim, clean, total, report);
      console.log(`SIGINT ×${INTERRUPTS} (${driver}): ${dup} paid calls repeated (${kinds}); ${report}`);
    } finally {
      await worker?.stop();
      await sim.close();
      if (q) await cleanPrefix(q.url, q.prefix);
    }
  });
});
