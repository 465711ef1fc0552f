import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { fragsync } from '../helpers/cli.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { expectStoppedAtOnce, sleep } from '../helpers/interrupt.ts';
import { tempDir } from '../helpers/tmp.ts';
import { startDemo } from '../helpers/demo.ts';

/**
 * `fragsync demo` interrupted, as a user does in the middle of `npm run demo`: the real command
 * with its own local service in a child process. Before, the signal killed the demo outright:
 * no summary, and a SIGINT or SIGTERM sent to the demo alone left its service running.
 */

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-demo-');
});
afterAll(() => dir.cleanup());

describe('fragsync demo', () => {
  it('SIGINT drains like sync: partial summary, exit 130, and its local service stopped', async () => {
    const { child, out, state, exited, url } = await startDemo(dir.path, { fragrances: 5000 });
    child.kill('SIGINT');
    await exited;
    const { stdout, stderr } = out;

    expect(state.end?.code, `${stdout}\n${stderr}`).toBe(EXIT.interrupted);
    expect(stderr).toContain('fragsync demo: stopping');
    const run = /^run (\S+): interrupted in /m.exec(stdout);
    expect(run, stdout).not.toBeNull();
    expect(stdout).toMatch(/^still owed: (at least )?\d+ calls/m);
    const calls = Number(/^calls: (\d+) /m.exec(stdout)![1]);
    // What the summary says is what the warehouse holds: the run closed as interrupted.
    const db = join(dir.path, 'fragsync.duckdb');
    expect(await queryWarehouse(db, 'SELECT run_id, status FROM sync_runs')).toEqual([
      { run_id: run![1], status: 'interrupted' },
    ]);
    expect(await queryWarehouse(db, 'SELECT count(*)::INTEGER AS n FROM api_calls')).toEqual([{ n: calls }]);
    // Its service went with it: nothing answers at its address any more.
    await expect(fetch(`${url}/v1/charts`)).rejects.toThrow();
  }, 240_000);

  it('a second SIGINT stops at once as sync does: what the run spent; the next sync records it interrupted', async () => {
    const data = join(dir.path, 'twice');
    const { child, out, state, exited, url } = await startDemo(data, { fragrances: 5000 });
    child.kill('SIGINT');
    // The second as soon as the first is taken: the drain (the last batch, the summary) is going on.
    while (!out.stderr.includes('fragsync demo: stopping') && state.end === undefined) await sleep(5);
    child.kill('SIGINT');
    await exited;
    const { stdout, stderr } = out;

    // Ended by the signal itself, having said what the run spent.
    expect(state.end, `${stdout}\n${stderr}`).toEqual({ code: null, signal: 'SIGINT' });
    const spent = /^fragsync demo: run (\S+) spent (\d+) calls, (\d+) cents /m.exec(stderr);
    expect(spent, stderr).not.toBeNull();
    expect(stderr).toContain('fragsync demo: stopped at once');
    // Its service was told to stop: nothing answers at its address once it has.
    const deadline = Date.now() + 10_000;
    while (
      Date.now() < deadline &&
      (await fetch(`${url}/v1/charts`).then(
        () => true,
        () => false,
      ))
    )
      await sleep(100);
    await expect(fetch(`${url}/v1/charts`)).rejects.toThrow();

    // The next sync (against another service; what matters is how it finds the run) takes
    // the writer lock over and records the run interrupted, with exit 130, not died.
    const db = join(data, 'fragsync.duckdb');
    const sim = await startSimulator({ fragrances: 12 });
    try {
      await fragsync(['sync', '--base-url', sim.url, '--db', db], { FRAGSYNC_API_KEY: 'sim-key' });
    } finally {
      await sim.close();
    }
    await expectStoppedAtOnce(db, spent![1]!);
  }, 240_000);
});
