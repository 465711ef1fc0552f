import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { oneLine } from '../../errors.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';

/** `fragsync query "SQL"`: one read-only query for analysts, printed as a table or JSON lines. */
export async function run(argv: string[]): Promise<number> {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        db: { type: 'string', default: process.env.FRAGSYNC_DB ?? 'data/fragsync.duckdb' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (err) {
    console.error(`fragsync query: ${oneLine(err)}`);
    return EXIT.badInput;
  }
  if (values.help || positionals.length !== 1) {
    (values.help ? console.log : console.error)('Usage: fragsync query "SQL" [--db FILE] [--json]');
    return values.help ? EXIT.ok : EXIT.badInput;
  }
  if (!existsSync(values.db)) {
    console.error(`fragsync query: no warehouse at ${values.db} (run a sync first, or pass --db)`);
    return EXIT.badInput;
  }
  try {
    const wh = await Warehouse.open(values.db, { readOnly: true });
    try {
      const rows = await wh.query<Record<string, unknown>>(positionals[0] as string);
      if (values.json) for (const r of rows) console.log(JSON.stringify(r));
      else console.table(rows);
    } finally {
      await wh.close();
    }
    return EXIT.ok;
  } catch (err) {
    console.error(`fragsync query: ${oneLine(err)}`);
    return EXIT.badInput;
  }
}
