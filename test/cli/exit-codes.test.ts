import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.ts';
import type { RunStatus } from '../../src/domain/run.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync, said } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('exit codes', () => {
  test('each cause a run ends with has the code the README documents', () => {
    const documented: Record<RunStatus, number> = {
      completed: 0,
      // Read everything it owed, but records are in quarantine (not stored).
      completed_with_quarantine: 8,
      budget_exhausted: 3,
      payment_required: 4,
      quota_exhausted: 5,
      unauthorized: 6,
      failed: 7,
      // A bug inside the engine is not the service's fault: never the code of an unreachable API.
      internal_error: 1,
      // Stopped by SIGINT/SIGTERM (or a process that died, closed by the next start).
      interrupted: 130,
      running: 1,
    };
    for (const [status, code] of Object.entries(documented))
      expect(exitCodeFor(status as RunStatus), status).toBe(code);
  });
});

/** The real binary against the simulator over HTTP: an internal failure and an unreachable API differ. */
describe('an internal failure and an unreachable service, on the command line', () => {
  const BUG = fileURLToPath(new URL('../helpers/faults/bug-in-note-job.mjs', import.meta.url));
  let sim: Simulator;
  let dir: { path: string; cleanup(): Promise<void> };
  beforeAll(async () => {
    sim = await startSimulator({ fragrances: 12 });
    dir = await tempDir();
  });
  afterAll(async () => {
    await sim.close();
    await dir.cleanup();
  });

  test('a bug inside the engine (every note job throws a TypeError) is exit 1, the rest of the run loads', async () => {
    const db = join(dir.path, 'bug.duckdb');
    const r = await fragsync(
      ['sync', '--base-url', sim.url, '--db', db],
      { FRAGSYNC_API_KEY: 'sim-key' },
      {
        nodeArgs: ['--import', BUG],
      },
    );
    expect(r.code, r.stderr).toBe(EXIT.unexpected);
    expect(r.stdout).toMatch(/^run \S+: internal_error in /m);
    expect(said(r)).toContainEqual(
      expect.stringMatching(
        /^fragsync sync: \d+ jobs failed on an internal error \(a bug in fragsync, not the service\); first: .*Cannot read properties of undefined/,
      ),
    );
    const truth = sim.groundTruth();
    const wh = await Warehouse.open(db, { readOnly: true });
    try {
      const [f] = await wh.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM fragrances');
      expect(f!.n).toBe(truth.fragrances.length);
      const failed = await wh.query<{ endpoint: string; n: number }>(
        "SELECT endpoint, count(*)::INTEGER AS n FROM quarantine WHERE reason LIKE 'job failed:%' GROUP BY 1",
      );
      expect(failed).toEqual([{ endpoint: 'note', n: expect.any(Number) }]);
      const [run] = await wh.query<{ status: string }>('SELECT status FROM sync_runs');
      expect(run!.status).toBe('internal_error');
    } finally {
      await wh.close();
    }
  });

  test('the same sync without the planted bug completes: exit 0', async () => {
    const r = await fragsync(['sync', '--base-url', sim.url, '--db', join(dir.path, 'ok.duckdb')], {
      FRAGSYNC_API_KEY: 'sim-key',
    });
    expect(r.code, r.stderr).toBe(EXIT.ok);
  });

  test('a service that keeps failing (every request a 500) keeps exit 7', async () => {
    // (An unreachable one: test/cli/program.test.ts, 'connection errors'.)
    const failing = await startSimulator({ fragrances: 12 });
    failing.setFaults({ errorRate: 1 });
    const config = join(dir.path, 'no-retries.json');
    await writeFile(config, JSON.stringify({ http: { maxRetries: 0 } }));
    try {
      const r = await fragsync(
        ['sync', '--base-url', failing.url, '--db', join(dir.path, 'down.duckdb'), '--config', config],
        { FRAGSYNC_API_KEY: 'sim-key' },
      );
      expect(r.code, r.stderr).toBe(EXIT.apiUnavailable);
      expect(r.stdout).toMatch(/^run \S+: failed in /m);
    } finally {
      await failing.close();
    }
  });
});
