import { describe, it } from 'vitest';
import { flushallScenario } from '../helpers/flushall.ts';
import { governedFiles } from '../helpers/governed.ts';

/**
 * BullMQ mode, Redis loses all its data (FLUSHALL, on a redis-server this test starts) in
 * the middle of a run served by the sync and two worker processes. The run is rebuilt from
 * what the sync holds (the jobs it still owes; everything already received is journaled), the
 * jobs in hand finish and the reports lost with the load queue are sent again, so at most the
 * jobs in flight at the flush are paid again (measured: none); the ledger is exact; and the
 * sync's log says so in one warning line, not an error per job (41 lines before).
 */

const files = governedFiles();

describe('Redis loses its data mid-run', () => {
  it('FLUSHALL: exact, api_calls = ledger, repeats within the jobs in flight, one warning line', async () => {
    await flushallScenario({
      catalogue: { fragrances: 300, seed: 1403 },
      latencyMs: 40,
      concurrency: 3,
      flushAt: [1 / 3],
      path: files.path,
      config: files.config,
      label: 'redis-loss',
    });
  }, 300_000);
});
