import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { fragsync } from '../helpers/cli.ts';
import { childrenOf, ended, startDemo } from '../helpers/demo.ts';
import { diffTables, truthTables, warehouseTables } from '../helpers/ground-truth.ts';
import { sleep } from '../helpers/interrupt.ts';
import { fileTempDir } from '../helpers/tmp.ts';

/**
 * `fragsync demo` as a terminal signals it: Ctrl-C goes to the whole foreground process group.
 * Before, the local service was in the demo's group and died at once; the drain's calls were
 * refused (hundreds of ECONNREFUSED retry lines, in-flight calls ended with no answer). And
 * its service must never outlive the demo, even one SIGKILLed.
 */

// Large enough that the demo is still fetching when the signal comes: 2,000 fragrances took
// 2.6 s on a quiet machine, and the demo could end before it (as demo.test, 5,000).
const FRAGRANCES = 5000;

const dir = fileTempDir('fragsync-demo-group-');

describe('fragsync demo, its process group signalled', () => {
  it('a Ctrl-C to the group drains against a service still up, then stops it; the next sync is exact', async () => {
    const data = join(dir.path, 'group');
    const { child, out, state, exited, url } = await startDemo(data, {
      fragrances: FRAGRANCES,
      detached: true,
    });
    process.kill(-child.pid!, 'SIGINT');
    await exited;
    const { stdout, stderr } = out;

    expect(state.end?.code, `${stdout}\n${stderr}`).toBe(EXIT.interrupted);
    expect(stdout).toMatch(/^run \S+: interrupted in /m);
    expect(`${stdout}\n${stderr}`).not.toContain('ECONNREFUSED');
    expect(`${stdout}\n${stderr}`).not.toContain('no answer');
    expect(stdout).toMatch(/failed calls: 0$/m);
    // Stopped after the drain: nothing answers at its address any more.
    await expect(fetch(`${url}/v1/charts`)).rejects.toThrow();

    // The next sync, against the same catalogue (same size, same seed), mirrors it exactly.
    const db = join(data, 'fragsync.duckdb');
    const sim = await startSimulator({ fragrances: FRAGRANCES });
    try {
      const r = await fragsync(['sync', '--base-url', sim.url, '--db', db], { FRAGSYNC_API_KEY: 'sim-key' });
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(db, truth.serviceDate))).toEqual({});
    } finally {
      await sim.close();
    }
  }, 240_000);

  it('a SIGKILLed demo leaves no local service behind', async () => {
    const { child, exited } = await startDemo(join(dir.path, 'killed'), {
      fragrances: FRAGRANCES,
      detached: true,
    });
    const service = childrenOf(child.pid!);
    expect(service).toHaveLength(1);
    const pid = service[0]!;
    try {
      child.kill('SIGKILL');
      await exited;
      const deadline = Date.now() + 10_000;
      while (!ended(pid) && Date.now() < deadline) await sleep(50);
      expect(ended(pid)).toBe(true);
    } finally {
      if (!ended(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);
});
