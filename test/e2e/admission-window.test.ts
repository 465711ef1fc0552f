import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { expectLedgerEqual, expectMirror } from '../helpers/governed.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The admission window (src/sync/admission.ts) far below what a catalogue owes: the queue
 * holds at most 6 jobs while hundreds wait in the sync's backlog. A run stopped by its cent
 * cap says the backlog is still owed, and the next run completes the mirror exactly, with
 * api_calls equal to the service's ledger, on both drivers.
 */

const WINDOW = 6;
let dir: { path: string; cleanup(): Promise<void> };
let config: string;
beforeAll(async () => {
  dir = await tempDir();
  config = join(dir.path, 'window.json');
  await writeFile(config, JSON.stringify({ queue: { windowJobs: WINDOW } }));
});
afterAll(async () => {
  await dir.cleanup();
});

describe.each([inProcess, bullmq])('a small admission window, $name', (driver) => {
  it('stops at a cap with the backlog owed, then completes exactly', async () => {
    const sim = await startSimulator({ fragrances: 40, seed: 11 });
    try {
      const dbPath = join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}.duckdb`);
      const capped = await driver.sync(sim, dbPath, { config, 'max-cents': '120' });
      expect(capped.status).toBe('budget_exhausted');
      // What the driver held and what never left the backlog: far more than the window.
      expect(capped.owedJobs.waiting + capped.owedJobs.active).toBeGreaterThan(WINDOW);
      await expectLedgerEqual(sim, dbPath);

      const rest = await driver.sync(sim, dbPath, { config });
      expect(rest.status).toBe('completed');
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
    // Two syncs, with BullMQ two worker processes too: a minute on a loaded machine.
  }, 180_000);
});
