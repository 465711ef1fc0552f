import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { fragsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The summary of a sync stopped before it read anything says only what helps: a refused key,
 * what was spent and the error (before: the endpoint table and every table's zeros); a wrong
 * base URL, its 404s as no such endpoint (before: 'an item gone upstream', which they are not).
 */
let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
beforeAll(async () => {
  dir = await tempDir('fragsync-stopped-summary-');
  sim = await startSimulator({ fragrances: 20, variant: { errorBody: 'text' } });
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

describe('the summary of a sync stopped at its first calls', () => {
  it('a refused key: the run line, the error, what was spent; no table of zeros', async () => {
    const r = await fragsync(['sync', '--base-url', sim.url, '--db', join(dir.path, 'key.duckdb')], {
      FRAGSYNC_API_KEY: 'wrong',
    });
    expect(r.code, r.stderr).toBe(EXIT.unauthorized);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^run \S+: unauthorized in [\d.]+ s$/);
    expect(lines[1]).toMatch(/^ {2}UNAUTHORIZED: .*401/);
    expect(lines[2]).toMatch(
      /^calls: \d+ {3}spent: \d+ cents \(\$[\d.]+\) on answered calls {3}failed calls: \d+ \(401 key refused: \d+\)$/,
    );
    expect(
      lines.slice(3).every((l) => /^ {2}up to \d+ cents/.test(l)),
      r.stdout,
    ).toBe(true);
    expect(r.stdout).not.toMatch(/^table\s+rows/m);
  });

  it('a wrong base URL: its 404s are no such endpoint, not items gone upstream (text and --json)', async () => {
    const db = join(dir.path, 'url.duckdb');
    const env = { FRAGSYNC_API_KEY: 'sim-key' };
    const r = await fragsync(['sync', '--base-url', `${sim.url}/v1`, '--db', db], env);
    expect(r.code, r.stderr).toBe(EXIT.apiUnavailable);
    expect(r.stdout).toMatch(
      /failed calls: (\d+) \(404 not found \(no such endpoint: wrong base URL\): \1\)$/m,
    );
    expect(r.stdout).not.toContain('gone upstream');
    const j = await fragsync(['sync', '--base-url', `${sim.url}/v1`, '--db', db, '--json'], env);
    expect(JSON.parse(j.stdout)).toMatchObject({ status: 'failed', wrongBaseUrl: true });
  });
});
