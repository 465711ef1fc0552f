import { existsSync } from 'node:fs';
import { ConfigError, isFragsyncError, oneLine } from '../../errors.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const dir = config.export.parquetDir;
  if (!dir) {
    console.error('fragsync export: --parquet DIR is required (or FRAGSYNC_PARQUET_DIR); see --help');
    return EXIT.badInput;
  }
  if (!existsSync(config.dbPath)) {
    console.error(`fragsync export: warehouse file not found: ${config.dbPath}`);
    return EXIT.badInput;
  }
  let wh: Warehouse | undefined;
  try {
    // Read-only: an export never changes the warehouse (and fails clearly if a sync holds it).
    wh = await Warehouse.open(config.dbPath, { readOnly: true });
    const result = await wh.exportParquet(dir);
    const rows = Object.values(result.tables).reduce((a, b) => a + b, 0);
    if (input.opts.json === true)
      console.log(JSON.stringify({ dir: result.dir, rows, tables: result.tables }));
    else console.log(`exported ${Object.keys(result.tables).length} tables (${rows} rows) to ${result.dir}`);
    return EXIT.ok;
  } catch (err) {
    // A folder that cannot be created, written or replaced (it holds the user's files) is
    // the user's setup (exit 2); so are a warehouse a sync holds and a full disk.
    console.error(`fragsync export: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
    const setup = isFragsyncError(err) && (err.code === 'WAREHOUSE_LOCKED' || err.code === 'DISK_FULL');
    return err instanceof ConfigError || setup ? EXIT.badInput : EXIT.unexpected;
  } finally {
    await wh?.close().catch(() => undefined);
  }
}
