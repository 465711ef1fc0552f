import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { oneLine } from '../../errors.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';

const USAGE = `Usage: fragsync export --parquet DIR [--db FILE]

Writes every contract table to DIR/<table>.parquet (contract columns, no lineage), from one
consistent snapshot. Files are written into a temporary sibling folder and renamed to DIR
when complete, so readers never see a partial export.

Options:
  --parquet DIR  output folder (replaced as a whole)
  --db FILE      DuckDB warehouse file (default: $FRAGSYNC_DB or data/fragsync.duckdb)
  -h, --help     show this help`;

export async function run(argv: string[]): Promise<number> {
  let values: { parquet?: string; db?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { parquet: { type: 'string' }, db: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (err) {
    console.error(`fragsync export: ${oneLine(err)}`);
    return EXIT.badInput;
  }
  if (values.help) {
    console.log(USAGE);
    return EXIT.ok;
  }
  if (!values.parquet) {
    console.error('fragsync export: --parquet DIR is required (see --help)');
    return EXIT.badInput;
  }
  const dbPath = values.db ?? process.env.FRAGSYNC_DB ?? 'data/fragsync.duckdb';
  if (!existsSync(dbPath)) {
    console.error(`fragsync export: warehouse file not found: ${dbPath}`);
    return EXIT.badInput;
  }
  let wh: Warehouse | undefined;
  try {
    // Read-only: an export never changes the warehouse (and fails clearly if a sync holds it).
    wh = await Warehouse.open(dbPath, { readOnly: true });
    const result = await wh.exportParquet(values.parquet);
    const rows = Object.values(result.tables).reduce((a, b) => a + b, 0);
    console.log(`exported ${Object.keys(result.tables).length} tables (${rows} rows) to ${result.dir}`);
    return EXIT.ok;
  } catch (err) {
    console.error(`fragsync export: ${oneLine(err)}`);
    return EXIT.unexpected;
  } finally {
    await wh?.close().catch(() => undefined);
  }
}
