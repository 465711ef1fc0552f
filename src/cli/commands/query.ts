import { existsSync } from 'node:fs';
import { oneLine } from '../../errors.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

/** `fragsync query "SQL"`: one read-only query for analysts, printed as a table or JSON lines. */
export async function run(input: CommandInput): Promise<number> {
  const { dbPath } = configOf(input);
  const sql = input.args[0] as string;
  if (!existsSync(dbPath)) {
    console.error(`fragsync query: no warehouse at ${dbPath} (run a sync first, or pass --db)`);
    return EXIT.badInput;
  }
  try {
    const wh = await Warehouse.open(dbPath, { readOnly: true });
    try {
      const rows = await wh.query<Record<string, unknown>>(sql);
      if (input.opts.json) for (const r of rows) console.log(JSON.stringify(r));
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
