import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { releaseFetchedJobs, supersedeQuarantined } from '../../src/warehouse/quarantine.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fileTempDir } from '../helpers/tmp.ts';

/**
 * What releases a failed job's quarantine row (sql/runs/release-jobs.sql), kind by kind: the
 * warehouse's state says a later fetch did what the job was to do. Rows are failed at T0;
 * the state says what was fetched at T1 (later) or T_EARLY (before the failure: no release).
 * A real DuckDB file, the rows written as the loader writes them.
 */
const dir = fileTempDir('fragsync-release-jobs-');

const T_EARLY = '2026-01-01T00:00:00Z';
const T0 = '2026-01-02T00:00:00Z';
const T1 = '2026-01-03T00:00:00Z';

const JOBS: [kind: string, payload: unknown][] = [
  ['fragranceProfile', { id: 'f1' }],
  ['fragranceSimilar', { id: 'f1' }],
  ['fragranceWearing', { id: 'f2' }],
  ['fragranceReviews', { id: 'f1', knownTotal: null, knownCount: null }],
  ['reviewDigest', { id: 'f1' }],
  ['fragranceEnrich', { id: 'f1' }],
  ['fragranceEnrich', { id: 'f2' }],
  ['brand', { slug: 'b1' }],
  ['brandCatalogue', { slug: 'b1' }],
  ['perfumer', { slug: 'p1' }],
  ['note', { slug: 'n1' }],
  ['chart', { slug: 'c1' }],
  ['fragrancesPage', { page: 2 }],
  ['fragrancesPage', { page: 3 }],
  ['fragrancesPage', { page: 9 }],
  ['notesPage', { page: 1 }],
  ['accords', {}],
  ['charts', {}],
  ['trending', {}],
  ['batch', { ids: ['f1', 'gone'] }],
  ['batch', { ids: ['f1', 'f2'] }],
];

describe('failed jobs released by what a later sync fetched', () => {
  it('each kind by its own state; nothing fetched since (or before) keeps its row open', async () => {
    const wh = await Warehouse.open(join(dir.path, 'r.duckdb'), {});
    try {
      for (const [kind, payload] of JOBS)
        await wh.query(
          `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
           VALUES ('r0', ?::TIMESTAMPTZ, ?, ?, 'job failed: NETWORK', ?::JSON, 'job')`,
          [T0, kind, `${kind}-${JSON.stringify(payload)}`, JSON.stringify(payload)],
        );
      // f1: every dataset fetched since; f2: wearing fetched before the failure, similar
      // since but not its reviews (enrich reads both); b1, n1, c1 since; p1 before.
      await wh.query(
        `INSERT INTO sync_items (entity, key, first_seen, removed, fetched_profile, fetched_similar,
           fetched_wearing, fetched_reviews, fetched_review_digest, fetched_catalogue) VALUES
         ('fragrance', 'f1', '${T_EARLY}', false, '${T1}', '${T1}', '${T1}', '${T1}', '${T1}', NULL),
         ('fragrance', 'f2', '${T_EARLY}', false, NULL, '${T1}', '${T_EARLY}', NULL, NULL, NULL),
         ('fragrance', 'gone', '${T_EARLY}', true, NULL, NULL, NULL, NULL, NULL, NULL),
         ('brand', 'b1', '${T_EARLY}', false, '${T1}', NULL, NULL, NULL, NULL, '${T1}'),
         ('perfumer', 'p1', '${T_EARLY}', false, '${T_EARLY}', NULL, NULL, NULL, NULL, NULL),
         ('note', 'n1', '${T_EARLY}', false, '${T1}', NULL, NULL, NULL, NULL, NULL),
         ('chart', 'c1', '${T_EARLY}', false, '${T1}', NULL, NULL, NULL, NULL, NULL)`,
      );
      // Page 2 read since; page 3 not (the walk is not through); page 9 is beyond the list as
      // page 1 read since says (120 items at 50); notes page 1 read before the failure only;
      // accords read whole since; charts read since but not done.
      await wh.query(
        `INSERT INTO sync_walks (walk, page, total, done, "at", run_id, page_size) VALUES
         ('fragrances@1', 1, 120, true, '${T1}', 'r1', 50),
         ('fragrances@2', 2, 120, true, '${T1}', 'r1', 50),
         ('notes@1', 1, 10, true, '${T_EARLY}', 'r1', 50),
         ('accords', 2, 60, true, '${T1}', 'r1', 50),
         ('charts', 1, 5, false, '${T1}', 'r1', NULL)`,
      );
      await wh.query(
        `INSERT INTO api_calls (run_id, "at", method, endpoint, status) VALUES ('r1', '${T1}', 'GET', '/v1/trending', 200)`,
      );

      expect(await releaseFetchedJobs(wh, new Date(T1))).toBe(14);
      const open = await wh.query<{ endpoint: string; raw: string }>(
        `SELECT endpoint, raw::VARCHAR AS raw FROM quarantine WHERE released_at IS NULL ORDER BY endpoint, raw::VARCHAR`,
      );
      expect(open.map((r) => `${r.endpoint} ${r.raw}`)).toEqual([
        'batch {"ids":["f1","f2"]}',
        'charts {}',
        'fragranceEnrich {"id":"f2"}',
        'fragranceWearing {"id":"f2"}',
        'fragrancesPage {"page":3}',
        'notesPage {"page":1}',
        'perfumer {"slug":"p1"}',
      ]);
      // Released rows are not released again (their time stays).
      expect(await releaseFetchedJobs(wh, new Date())).toBe(0);
    } finally {
      await wh.close();
    }
  });
});

describe('a record quarantined again with another answer supersedes its older rows', () => {
  it("the latest answer's rows stay open (a list's entries all), a keyless row and other scopes alone", async () => {
    const wh = await Warehouse.open(join(dir.path, 's.duckdb'), {});
    try {
      const row = (at: string, endpoint: string, key: string, scope: string, raw: unknown) =>
        wh.query(
          `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
           VALUES ('r', ?::TIMESTAMPTZ, ?, ?, 'refused', ?::JSON, ?)`,
          [at, endpoint, key, JSON.stringify(raw), scope],
        );
      const similar = '/v1/fragrances/{id}/similar';
      await row(T0, similar, 'f1', 'entry', { e: 1 });
      await row(T0, similar, 'f1', 'entry', { e: 2 });
      await row(T1, similar, 'f1', 'entry', { e: 3 });
      await row(T1, similar, 'f1', 'entry', { e: 4 });
      await row(T0, similar, 'f1', 'response', { whole: 1 });
      await row(T0, 'loader', '', 'item', { a: 1 });
      await row(T1, 'loader', '', 'item', { a: 2 });
      expect(await supersedeQuarantined(wh, new Date(T1))).toBe(2);
      const open = await wh.query<{ raw: string }>(
        `SELECT raw::VARCHAR AS raw FROM quarantine WHERE superseded_at IS NULL ORDER BY raw::VARCHAR`,
      );
      expect(open.map((r) => r.raw)).toEqual(['{"a":1}', '{"a":2}', '{"e":3}', '{"e":4}', '{"whole":1}']);
      expect(await supersedeQuarantined(wh, new Date())).toBe(0);
    } finally {
      await wh.close();
    }
  });
});
