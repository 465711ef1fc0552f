import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { tempDir } from '../helpers/tmp.ts';
import { BIN } from '../helpers/worker-process.ts';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fragsync demo', () => {
  it('SIGINT drains like sync: partial summary, exit 130, and its local service stopped', async () => {
    // A catalogue large enough that the run is still going when the signal comes.
    const child = spawn(process.execPath, [BIN, 'demo', '--fragrances', '5000', '--data', dir.path], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let code: number | null | undefined;
    const exited = new Promise<void>((r) =>
      child.once('exit', (c) => {
        code = c;
        r();
      }),
    );
    // Sending: its progress line (every 2 s) has come.
    while (!/\| calls \d+/.test(stderr) && code === undefined) await sleep(50);
    expect(code, `${stdout}\n${stderr}`).toBeUndefined();
    const url = /^local Fragrance Data Service: (http:\/\/\S+)/m.exec(stdout)![1]!;
    child.kill('SIGINT');
    await exited;

    expect(code, `${stdout}\n${stderr}`).toBe(EXIT.interrupted);
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
});
