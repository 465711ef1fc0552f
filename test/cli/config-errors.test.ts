import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { closedPort, fragsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A config error is one line in one form, naming what the user set, whichever command meets it. */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-config-errors-');
});
afterAll(() => dir.cleanup());

describe('config errors on the command line', () => {
  it('FRAGSYNC_NO_WAIT=maybe names the variable, not quota.wait (which it sets inverted)', async () => {
    const r = await fragsync(['plan', '--db', join(dir.path, 'p.duckdb')], { FRAGSYNC_NO_WAIT: 'maybe' });
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toBe(
      "fragsync plan: config: FRAGSYNC_NO_WAIT must be true or false (or 1/0, yes/no, on/off), not 'maybe'\n",
    );
  });

  it('sync and worker say a missing key the same way: "config: …", no error code before it', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const sync = await fragsync(['sync', '--base-url', base, '--db', join(dir.path, 's.duckdb')]);
    const worker = await fragsync(['worker', '--base-url', base, '--redis', 'redis://127.0.0.1:1']);
    const line = 'config: the API key is missing: set the FRAGSYNC_API_KEY environment variable';
    expect([sync.code, sync.stderr]).toEqual([EXIT.badInput, `fragsync sync: ${line}\n`]);
    expect(worker.stderr.trim().split('\n').at(-1)).toBe(`fragsync worker: ${line}`);
  });
});
