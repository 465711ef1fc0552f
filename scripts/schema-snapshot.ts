/**
 * Writes test/warehouse/schema-snapshot.json: the schema a fresh warehouse gets from all
 * migrations and views. Run `npm run schema:snapshot` after adding a migration or a view,
 * review the diff, and commit it; test/warehouse/schema.test.ts compares the two.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSchema } from '../src/warehouse/schema-info.ts';
import { Warehouse } from '../src/warehouse/warehouse.ts';

const dir = await mkdtemp(join(tmpdir(), 'fragsync-schema-'));
try {
  const wh = await Warehouse.open(join(dir, 'schema.duckdb'));
  const schema = await describeSchema(wh);
  await wh.close();
  const out = new URL('../test/warehouse/schema-snapshot.json', import.meta.url);
  await writeFile(out, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${out.pathname} (${Object.keys(schema).length} tables and views)`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
