import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  cleanRunCalls,
  expectLedgerWithin,
  expectMirror,
  governedFiles,
  queryWarehouse,
  repeatBound,
} from '../helpers/governed.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { spawnSync } from '../helpers/sync-process.ts';

/**
 * `fragsync sync` (in-process driver) killed with SIGKILL at random points, several times,
 * then run to completion. What a kill can lose is what was in flight: the journal holds
 * every job result from the moment it arrived, so only the jobs running at the kill are
 * fetched (and paid) again; and every request from the moment it was sent, so the ledger
 * still equals the service's.
 */

const CATALOGUE = { fragrances: 60, seed: 51 };
const CONCURRENCY = 4;
const KILLS = 3;

const files = governedFiles();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('governed sync: killed processes', () => {
  it('SIGKILLed at random points, resumes to an exact mirror; paid calls repeated stay within the jobs in flight', async () => {
    const clean = await cleanRunCalls(
      () => startSimulator({ ...CATALOGUE, recordPaid: true }),
      files.path('clean.duckdb'),
      files.config,
    );
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    // Responses take 25 ms, so each kill (within half a second of the run's first calls) lands
    // while work is left, however fast the sync has become: a kill after the run completed
    // would test nothing (and the next run would open a new cycle).
    sim.setFaults({ latencyMs: 25 });
    try {
      const dbPath = files.path('killed.duckdb');
      const delays: number[] = [];
      for (let k = 0; k < KILLS; k++) {
        const before = sim.ledger().calls;
        const proc = spawnSync(sim, dbPath, { config: files.config, concurrency: CONCURRENCY });
        // Once it is sending, kill it somewhere in the next half second.
        while (sim.ledger().calls < before + 5) await sleep(5);
        const delayMs = Math.floor(Math.random() * 500);
        delays.push(delayMs);
        await sleep(delayMs);
        proc.kill();
        const end = await proc.exited;
        expect(end.signal, `run ${k + 1} ended before its kill: ${end.output}`).toBe('SIGKILL');
      }
      const final = spawnSync(sim, dbPath, { config: files.config, concurrency: CONCURRENCY });
      const end = await final.exited;
      expect(end.code, end.output).toBe(EXIT.ok);
      expect(end.output).toContain(': completed in');

      await expectMirror(sim, dbPath);
      const runs = await queryWarehouse<{ status: string }>(
        dbPath,
        'SELECT status FROM sync_runs ORDER BY started_at',
      );
      expect(runs.map((r) => r.status)).toEqual([...Array(KILLS).fill('died'), 'completed']);

      // Bound (repeatBound): per kill, the calls of the largest jobs, as many as the process
      // runs at once (those in flight); nothing the clean run bought left unbought.
      const jobs = jobsPerProcess({ config: files.config, concurrency: String(CONCURRENCY) });
      const bound = KILLS * repeatBound(sim, jobs);
      expectRepeatsWithin(sim, clean, bound, `delays ${delays.join(',')} ms`);
      // Every call reaches the ledger, kills included: a request a killed process had on the
      // wire was journaled as it left, and the next start ledgers it as a call without an
      // answer. One journaled at the instant of a kill may never have been read by the service:
      // at most the requests in flight per kill (expectLedgerWithin).
      await expectLedgerWithin(sim, dbPath, KILLS * CONCURRENCY);
      const [unanswered] = await queryWarehouse<{ n: number }>(
        dbPath,
        'SELECT count(*)::INTEGER AS n FROM api_calls WHERE status = 0',
      );
      // Every kill landed with requests in flight (25 ms answers, 4 requests at a time). A job's
      // answers are journaled with its result, so a killed job's earlier pages count too:
      // the same bound as the repeated calls.
      expect(Number(unanswered?.n)).toBeGreaterThanOrEqual(1);
      expect(Number(unanswered?.n)).toBeLessThanOrEqual(bound);
    } finally {
      await sim.close();
    }
  });
});
