import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { RowDigest } from '../../src/util/row-digest.ts';
import { warehouseDigest } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The digests bench:scale compares a 120k warehouse with the truth by: equal for the same
 * rows in any order, different for one row more, less or changed.
 */
describe('RowDigest', () => {
  const digest = (rows: unknown[][]) => {
    const d = new RowDigest();
    for (const r of rows) d.add(r);
    return { rows: d.rows, digest: d.digest };
  };

  it('does not depend on order, and counts duplicates', () => {
    const a = digest([
      ['x', 1, 0.5],
      ['y', 2, null],
      ['x', 1, 0.5],
    ]);
    expect(
      digest([
        ['x', 1, 0.5],
        ['x', 1, 0.5],
        ['y', 2, null],
      ]),
    ).toEqual(a);
    expect(
      digest([
        ['x', 1, 0.5],
        ['y', 2, null],
      ]).digest,
    ).not.toBe(a.digest);
    expect(
      digest([
        ['x', 1, 0.5],
        ['y', 2, 0],
        ['x', 1, 0.5],
      ]).digest,
    ).not.toBe(a.digest);
  });
});

describe('truth digest against a synced warehouse', () => {
  let dir: { path: string; cleanup(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await dir.cleanup();
  });

  it('equals the warehouse digest after a full sync, and tells one changed row', async () => {
    const sim = await startSimulator({ fragrances: 60, seed: 5 });
    try {
      const dbPath = join(dir.path, 'digest.duckdb');
      expect((await runTestSync({ baseUrl: sim.url, dbPath })).status).toBe('completed');
      const truth = sim.truthDigest();
      const serviceDate = sim.groundTruth().serviceDate;
      expect(truth.similar_fragrances!.rows).toBeGreaterThan(0);
      expect(await warehouseDigest(dbPath, serviceDate)).toEqual(truth);
      // The control endpoint a benchmark in another process reads.
      expect(await (await fetch(`${sim.url}/_sim/truth-digest`)).json()).toEqual(truth);

      const instance = await DuckDBInstance.create(dbPath);
      const conn = await instance.connect();
      await conn.run(
        'UPDATE similar_fragrances SET similarity_score = similarity_score + 0.001 WHERE rowid = (SELECT min(rowid) FROM similar_fragrances)',
      );
      conn.closeSync();
      instance.closeSync();
      const changed = await warehouseDigest(dbPath, serviceDate);
      expect(changed.similar_fragrances!.rows).toBe(truth.similar_fragrances!.rows);
      expect(changed.similar_fragrances!.digest).not.toBe(truth.similar_fragrances!.digest);
      expect({ ...changed, similar_fragrances: null }).toEqual({ ...truth, similar_fragrances: null });
    } finally {
      await sim.close();
    }
  });
});
