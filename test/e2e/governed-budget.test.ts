import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  queryWarehouse,
  repeatBound,
} from '../helpers/governed.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { runTestSync } from '../helpers/sync.ts';

/**
 * Money scenarios end to end: the prepaid balance running out (402) and the per-run cent cap
 * (--max-cents). Each ends with the warehouse equal to the ground truth, api_calls equal to
 * the service's ledger, and the paid calls beyond a clean run's counted.
 */

const CATALOGUE = { fragrances: 40, seed: 31 };
const CONCURRENCY = 4;

const files = governedFiles();
/** What one uninterrupted sync of CATALOGUE sends and pays. */
let clean: { calls: number; cents: number; paid: string[] };
beforeAll(async () => {
  clean = await cleanRunCalls(
    () => startSimulator({ ...CATALOGUE, recordPaid: true }),
    files.path('clean.duckdb'),
    files.config,
  );
});

async function runCents(dbPath: string, runId: string): Promise<{ calls: number; cents: number }> {
  const [r] = await queryWarehouse<{ calls: number; cents: number }>(
    dbPath,
    'SELECT count(*)::INTEGER AS calls, coalesce(sum(cost_cents), 0)::INTEGER AS cents FROM api_calls WHERE run_id = ?',
    [runId],
  );
  return { calls: Number(r?.calls ?? 0), cents: Number(r?.cents ?? 0) };
}

describe('governed sync: money', () => {
  it('stops with payment_required on 402, keeps what it fetched, and continues after a top-up', async () => {
    const balanceCents = Math.floor(clean.cents * 0.4);
    const sim = await startSimulator({ ...CATALOGUE, balanceCents, recordPaid: true });
    try {
      const dbPath = files.path('balance.duckdb');
      const flags = { config: files.config, concurrency: String(CONCURRENCY) };
      const first = await runTestSync({ baseUrl: sim.url, dbPath, flags });
      expect(first.status).toBe('payment_required');
      expect(exitCodeFor(first.status)).toBe(EXIT.paymentRequired);
      expect(callsWithStatus(sim, 402)).toBeGreaterThanOrEqual(1);
      // Everything the service billed before the 402s is in the warehouse and its rows kept.
      const paidFirst = sim.ledger().cents;
      expect(paidFirst).toBeLessThanOrEqual(balanceCents);
      expect(paidFirst).toBeGreaterThan(balanceCents - 10);
      await expectLedgerEqual(sim, dbPath);
      expect(first.rows.fragrances).toBeGreaterThan(0);
      expect(first.owed?.cents).toBeGreaterThan(0);

      sim.topUp(1_000_000);
      const second = await runTestSync({ baseUrl: sim.url, dbPath, flags });
      expect(second.status).toBe('completed');
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      // Paid calls beyond a clean run: the jobs cut short by the stop (a reviews job may
      // have had pages paid before its 402), at most the jobs in flight (repeatBound); none
      // of the clean run's left unbought.
      expectRepeatsWithin(sim, clean, repeatBound(sim, jobsPerProcess(flags)), '402');
    } finally {
      await sim.close();
    }
  });

  it('stops at or below --max-cents with budget_exhausted and says what the rest would cost', async () => {
    const maxCents = Math.floor(clean.cents / 3);
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    try {
      const dbPath = files.path('capped.duckdb');
      const flags = { config: files.config, concurrency: String(CONCURRENCY) };
      const first = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { ...flags, 'max-cents': String(maxCents) },
      });
      expect(first.status).toBe('budget_exhausted');
      expect(exitCodeFor(first.status)).toBe(EXIT.budgetExhausted);
      const spent = await runCents(dbPath, first.runId);
      expect(spent.cents).toBe(first.cents);
      expect(spent.cents).toBeLessThanOrEqual(maxCents);
      // The cap was used, not abandoned early: the next call would have crossed it.
      expect(spent.cents).toBeGreaterThan(maxCents - 5 * CONCURRENCY);
      expect(first.owed).not.toBeNull();
      const owed = first.owed as { calls: number; cents: number; lowerBound: boolean };
      expect(owed.cents).toBeGreaterThan(0);
      expect(formatSummary(first)).toContain(
        `still owed: ${owed.lowerBound ? 'at least ' : ''}${owed.calls} calls, ${owed.cents} cents`,
      );

      const second = await runTestSync({ baseUrl: sim.url, dbPath, flags });
      expect(second.status).toBe('completed');
      // The estimate is close to what the rest did cost (a lower bound when sizes were unknown).
      if (owed.lowerBound) expect(owed.cents).toBeLessThanOrEqual(second.cents);
      expect(Math.abs(second.cents - owed.cents)).toBeLessThanOrEqual(second.cents * 0.25);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      expectRepeatsWithin(sim, clean, repeatBound(sim, jobsPerProcess(flags)), 'cap');
    } finally {
      await sim.close();
    }
  });
});
