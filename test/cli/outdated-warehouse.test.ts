import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Db } from '../../src/warehouse/db.ts';
import { latestVersion, migrate } from '../../src/warehouse/migrations.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A warehouse of the previous schema (fragsync upgraded, no sync since) under the read-only
 * commands: they cannot upgrade it, so each says in one line what will (the next sync), with
 * exit 2, the user's setup. Before, the line said "open it once read-write", which no
 * read-only command can, and export exited 1, as for a bug.
 */
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
beforeAll(async () => {
  dir = await tempDir('fragsync-outdated-');
  db = join(dir.path, 'old.duckdb');
  const file = await Db.open(db, false);
  await migrate(file, { upTo: latestVersion() - 1 });
  await file.close();
});
afterAll(() => dir.cleanup());

describe('a warehouse of the previous schema version', () => {
  it('query, runs, export and plan say the next sync upgrades it, one line, exit 2', async () => {
    const said =
      `${db} has schema version ${latestVersion() - 1}, this fragsync needs ${latestVersion()}: ` +
      'the next `fragsync sync` upgrades it (read-only commands never write the file)';
    const commands = [
      ['query', 'SELECT 1'],
      ['runs'],
      ['export', '--parquet', join(dir.path, 'parquet')],
      ['plan', '--base-url', 'http://127.0.0.1:9'],
    ];
    for (const [name, ...rest] of commands) {
      const r = await fragsync([name as string, '--db', db, ...rest], { FRAGSYNC_API_KEY: 'k' });
      expect(r.code, `${name}: ${r.stderr}`).toBe(EXIT.badInput);
      expect(r.stderr.trimEnd().split('\n'), name).toHaveLength(1);
      expect(r.stderr, name).toContain(said);
    }
  });

  it('once a read-write open upgraded it, they read it', async () => {
    await (await Warehouse.open(db)).close();
    const r = await fragsync(['query', '--db', db, '--json', 'SELECT 1 AS one']);
    expect([r.code, r.stdout]).toEqual([EXIT.ok, '{"one":1}\n']);
  });
});
