import { existsSync } from 'node:fs';
import { isFragsyncError, oneLine } from '../../errors.ts';
import { jobSettings } from '../../sync/job-settings.ts';
import { revalidate } from '../../sync/revalidate.ts';
import { quarantineListSql } from '../../warehouse/quarantine.ts';
import { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { outputWidth } from '../output/cell.ts';
import { printer, type Format } from '../output/formats.ts';
import { write } from '../output/write.ts';
import { configOf, type CommandInput } from '../spec.ts';
import { PIPE_WIDTH, TABLE_MAX_ROWS } from './query.ts';

/**
 * `fragsync quarantine`: the records a sync received but could not store, printed as
 * `fragsync query` prints; `--revalidate` checks them again with today's schemas and loads
 * those that now pass (sync/revalidate.ts), without a call to the service.
 */
export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const opts = input.opts;
  if (!existsSync(config.dbPath)) {
    console.error(`fragsync quarantine: no warehouse at ${config.dbPath} (run a sync first, or pass --db)`);
    return EXIT.badInput;
  }
  let wh: Warehouse | undefined;
  try {
    if (opts.revalidate === true) {
      wh = await Warehouse.open(config.dbPath, { existing: true });
      const r = await revalidate(wh, jobSettings(config));
      // A script's form: the counts as one JSON object (--json, --format json or jsonl).
      if (opts.json === true || opts.format === 'json' || opts.format === 'jsonl') {
        console.log(JSON.stringify(r));
        return EXIT.ok;
      }
      const why = [
        r.superseded > 0 ? `${r.superseded} fetched again since, so not loaded` : '',
        r.failedJobs > 0
          ? `${r.failedJobs} failed job${r.failedJobs === 1 ? '' : 's'}: nothing was received, to fetch again by the next sync`
          : '',
        r.unchecked > 0 ? `${r.unchecked} cannot be checked without asking the service again` : '',
      ].filter(Boolean);
      console.log(
        `released ${r.released} (now valid, loaded); ${r.remaining} remain${why.length > 0 ? ` (${why.join('; ')})` : ''}`,
      );
      return EXIT.ok;
    }
    wh = await Warehouse.open(config.dbPath, { readOnly: true });
    const format: Format = opts.json ? 'jsonl' : (opts.format as Format);
    const maxRows = (opts.maxRows as number | undefined) ?? (format === 'table' ? TABLE_MAX_ROWS : 0);
    const width = opts.width as number | undefined;
    const out = printer(format, {
      write,
      maxRows: maxRows === 0 ? null : maxRows,
      width: outputWidth(width, process.stdout, process.env, PIPE_WIDTH),
      // Into a file or grep a cut value (a key, a run id, a payload) is lost for good: every
      // column whole unless --width says otherwise.
      whole: process.stdout.isTTY || width !== undefined ? [] : 'all',
    });
    await wh.streamQuery(quarantineListSql({ payload: opts.payload === true, all: opts.all === true }), out);
    await out.end();
    return EXIT.ok;
  } catch (err) {
    console.error(`fragsync quarantine: ${oneLine(err)}`);
    // A warehouse a running sync holds is the machine's state, not a bug: wait, run again.
    // So is a file that is no warehouse (ConfigError from Warehouse.open), as for `runs`.
    return isFragsyncError(err) && (err.code === 'WAREHOUSE_LOCKED' || err.code === 'CONFIG_INVALID')
      ? EXIT.badInput
      : EXIT.unexpected;
  } finally {
    await wh?.close().catch(() => undefined);
  }
}
