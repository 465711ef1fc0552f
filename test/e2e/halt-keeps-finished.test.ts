import { describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';
import {
  callsWithStatus,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  queryWarehouse,
  waitFor,
} from '../helpers/governed.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * A job whose last request was on the wire when a 402 halted the run finishes with its
 * answer: what it bought is stored, not bought again by the next run. The clean-clone CI run
 * once saw the BullMQ worker turn such a job's finished result into "requeued" (only its
 * calls kept) because its halt signal had fired meanwhile, and the resumed run bought the
 * six review pages of one fragrance a second time (test/e2e/no-page-twice, the brand walk).
 * Here the service holds that last answer until the 402 has been answered and the halt made.
 */

const files = governedFiles();

describe.each(['memory', 'bullmq'] as const)(
  'a halt keeps what finished on the wire (%s driver)',
  (driver) => {
    it('the held answer is stored; the resumed run buys nothing twice; exact', async () => {
      const sim = await startSimulator({ fragrances: 40, seed: 91, recordPaid: true });
      const truth = sim.groundTruth();
      // A review walk of one page: the held answer ends the job.
      const id = truth.fragrances.find((f) => {
        const n = truth.reviews[f.id]?.length ?? 0;
        return n >= 1 && n <= 20;
      })!.id;
      const held = sim.holdAnswer((r) => r.startsWith(`GET /v1/fragrances/${id}/reviews?page=1&`));
      const dbPath = files.path(`halt-finished-${driver}.duckdb`);
      const prefix = uniquePrefix('halt-finished');
      const flags: Record<string, string> = { config: files.config, concurrency: '4' };
      // Only the sync's own worker: the held job is in the process that sees the 402s.
      if (driver === 'bullmq') Object.assign(flags, { redis: inject('redisUrl'), 'queue-prefix': prefix });
      const sync = (): Promise<SyncSummary> => runTestSync({ baseUrl: sim.url, dbPath, flags });
      try {
        const first = sync();
        await held.reached;
        // Spent by someone else from the next billed request on: the run's other jobs get 402s.
        sim.drainAfter(() => true);
        await waitFor('a 402', () => callsWithStatus(sim, 402) >= 1, 60_000);
        await new Promise((r) => setTimeout(r, 500));
        held.release();
        expect((await first).status).toBe('payment_required');
        const stored = await reviewedIds(dbPath);
        expect(stored).toContain(id);

        sim.topUp(1e9);
        expect((await sync()).status).toBe('completed');
        const paid = sim.paidRequests();
        expect(paid.filter((r) => r.startsWith(`GET /v1/fragrances/${id}/reviews?`))).toHaveLength(1);
        expect(paid.length, 'a request billed twice').toBe(new Set(paid).size);
        await expectMirror(sim, dbPath);
        await expectLedgerEqual(sim, dbPath);
      } finally {
        held.release();
        await sim.close();
        if (driver === 'bullmq') await cleanPrefix(inject('redisUrl'), prefix);
      }
    }, 180_000);
  },
);

async function reviewedIds(dbPath: string): Promise<string[]> {
  const rows = await queryWarehouse<{ id: string }>(
    dbPath,
    'SELECT DISTINCT fragrance_id AS id FROM reviews',
  );
  return rows.map((r) => r.id);
}
