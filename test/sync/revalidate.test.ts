import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeOfRun } from '../../src/cli/exit-codes.ts';
import { withQuarantine } from '../../src/domain/run.ts';
import { jobSettings } from '../../src/sync/job-settings.ts';
import { revalidate } from '../../src/sync/revalidate.ts';
import { loadConfig } from '../../src/config/index.ts';
import { flaggedInRun, quarantinedInRun } from '../../src/warehouse/quarantine.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { batch, count, freshWarehouse, profile } from '../warehouse/fixtures.ts';

/**
 * What the summary counts of a run (quarantined records, flagged values) and what
 * `fragsync quarantine --revalidate` does with each kind of row, on a real DuckDB file. The
 * command itself, over HTTP: test/cli/quarantine.test.ts.
 */
let wh: Warehouse;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ wh, cleanup } = await freshWarehouse());
});
afterEach(async () => {
  await wh.close();
  await cleanup();
});

const settings = jobSettings(loadConfig({ flags: { 'base-url': 'http://127.0.0.1:9' }, env: {} }));

async function quarantineRow(at: string, endpoint: string, key: string, raw: unknown, scope: string) {
  await wh.query(
    `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
     VALUES ('run-1', ?::TIMESTAMPTZ, ?, ?, 'refused by an older version', ?::JSON, ?)`,
    [at, endpoint, key, JSON.stringify(raw), scope],
  );
}

describe("a run's quarantined and flagged counts", () => {
  it('per endpoint with an example; a flag stores the value and leaves the exit code alone', async () => {
    // A profile score of 5.3 (the spec: out of 5.0) is stored and flagged; a year as text is refused.
    await wh.load(batch([profile('a', { score: 5.3 }), { ...profile('b'), year: '2001' } as never]));
    expect(await count(wh, 'fragrances')).toBe(1);
    const flagged = await flaggedInRun(wh, 'run-1');
    expect(flagged).toEqual([
      { endpoint: 'fragrances', count: 1, example: expect.stringMatching(/out of 5\.0.*5\.3.*a/) },
    ]);
    const quarantined = await quarantinedInRun(wh, 'run-1');
    expect(quarantined).toEqual([{ endpoint: 'loader', count: 1, example: expect.stringMatching(/year/) }]);
    expect(await quarantinedInRun(wh, 'run-2')).toEqual([]);
    expect(exitCodeOfRun({ status: 'completed', quarantined: [] })).toBe(0);
    // A run that read everything and quarantined records records its own status, which is 8.
    const n = quarantined.reduce((s, e) => s + e.count, 0);
    expect(withQuarantine('completed', n)).toBe('completed_with_quarantine');
    expect(withQuarantine('completed', 0)).toBe('completed');
    expect(exitCodeOfRun({ status: withQuarantine('completed', n), quarantined })).toBe(8);
    // An earlier version's row: 'completed' with records quarantined exited 8, and reads so.
    expect(exitCodeOfRun({ status: 'completed', quarantined })).toBe(8);
    expect(exitCodeOfRun({ status: 'completed', quarantined: 1 })).toBe(8);
    // Another cause keeps its own code: one code per cause.
    expect(exitCodeOfRun({ status: 'failed', quarantined })).toBe(7);
    expect(withQuarantine('failed', n)).toBe('failed');
    expect(withQuarantine('interrupted', n)).toBe('interrupted');
  });
});

/** A fragrance profile as the service sends it (the fixture's item without its kind). */
function answer(id: string, name: string): Record<string, unknown> {
  const { kind: _kind, ...body } = profile(id, { name });
  return body;
}

describe('revalidate', () => {
  it('plays a stored answer back through its job and loads it, without a request', async () => {
    await quarantineRow(
      '2026-01-01T00:00:00Z',
      '/v1/fragrances/{id}',
      'f',
      answer('f', 'Played back'),
      'response',
    );
    expect(await revalidate(wh, settings)).toEqual({
      released: 1,
      remaining: 0,
      superseded: 0,
      failedJobs: 0,
      unchecked: 0,
    });
    expect(await wh.query('SELECT name FROM fragrances')).toEqual([{ name: 'Played back' }]);
    expect(await count(wh, 'fragrance_notes', "fragrance_id = 'f'")).toBe(6);
    // The base URL (port 9) answers nothing: no call was made, none is in the ledger.
    expect(await count(wh, 'api_calls')).toBe(0);
  });

  it('loads an item the loader refused once it passes, and keeps one that still fails', async () => {
    await quarantineRow('2026-01-01T00:00:00Z', 'loader', 'c', profile('c'), 'item');
    await quarantineRow('2026-01-01T00:00:00Z', 'loader', 'd', { ...profile('d'), year: 'soon' }, 'item');
    expect(await revalidate(wh, settings)).toEqual({
      released: 1,
      remaining: 1,
      superseded: 0,
      failedJobs: 0,
      unchecked: 0,
    });
    expect(await wh.query('SELECT id, year FROM fragrances')).toEqual([{ id: 'c', year: 2001 }]);
    expect(await count(wh, 'quarantine', 'released_at IS NULL')).toBe(1);
    // Released rows are not checked again.
    expect(await revalidate(wh, settings)).toEqual({
      released: 0,
      remaining: 1,
      superseded: 0,
      failedJobs: 0,
      unchecked: 0,
    });
  });

  it('never loads a stored answer over a later fetch, and leaves a failed job (nothing received) to the next sync', async () => {
    // A later sync fetched e's profile (the fetched mark), after the row was quarantined.
    await wh.load(
      batch(
        [profile('e', { name: 'Newer' })],
        [{ kind: 'fetched', entity: 'fragrance', key: 'e', dataset: 'profile' }],
      ),
    );
    // The answer then, valid today: without the check it would load over the later one.
    await quarantineRow('2026-01-01T00:00:00Z', '/v1/fragrances/{id}', 'e', answer('e', 'Older'), 'response');
    await quarantineRow('2026-01-01T00:00:00Z', 'note', 'n1', { slug: 'n1' }, 'job');
    expect(await revalidate(wh, settings)).toEqual({
      released: 0,
      remaining: 2,
      superseded: 1,
      // A job that failed: nothing was received to check; counted apart, not as uncheckable.
      failedJobs: 1,
      unchecked: 0,
    });
    expect(await wh.query('SELECT name FROM fragrances')).toEqual([{ name: 'Newer' }]);
  });
});
