import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, oneLine } from '../../errors.ts';
import { formatPlan } from '../../plan/format.ts';
import { buildPlan, type QuotaSnapshot } from '../../plan/plan.ts';
import { planJson } from '../../plan/plan-json.ts';
import { ledgerQuota, ledgerToday } from '../../warehouse/ledger-day.ts';
import { emptySyncState } from '../../warehouse/state-types.ts';
import { checkCreatableDir } from '../../util/writable-dir.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

/**
 * `fragsync plan`: what the next sync would spend, from the warehouse and the config. It
 * reads the warehouse read-only and never builds an HTTP client: planning costs nothing.
 */

type ReadOnlyWarehouse = Pick<Warehouse, 'syncState' | 'query' | 'close'>;

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  const now = new Date();
  let state = emptySyncState();
  let quota: QuotaSnapshot | null = null;
  let centsToday = 0;
  if (!existsSync(config.dbPath)) {
    // No warehouse yet plans a first sync, unless no sync could ever create it there.
    try {
      checkCreatableDir(dirname(resolve(config.dbPath)), 'dbPath');
    } catch (err) {
      console.error(`fragsync plan: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
      return EXIT.badInput;
    }
  } else {
    try {
      // Loaded lazily so that an absent warehouse file never pays for DuckDB.
      const { Warehouse } = await import('../../warehouse/warehouse.ts');
      const wh: ReadOnlyWarehouse = await Warehouse.open(config.dbPath, { readOnly: true });
      try {
        state = await wh.syncState();
        // The quota's window and the day cap's day are the service's, as the last run saw its
        // clock: the figures `status` and the dashboard show (warehouse/ledger-day.ts).
        const q = await ledgerQuota(wh);
        quota = q && { remaining: q.remaining, limit: null, resetAt: q.resetAt };
        centsToday = (await ledgerToday(wh, now)).cents;
      } finally {
        await wh.close();
      }
    } catch (err) {
      // A folder or a file that is not a warehouse is the user's setup (exit 2), as for sync.
      if (err instanceof ConfigError) {
        console.error(`fragsync plan: ${err.message}`);
        return EXIT.badInput;
      }
      console.error(`fragsync plan: cannot read the warehouse ${config.dbPath}: ${oneLine(err)}`);
      return EXIT.unexpected;
    }
  }
  const plan = buildPlan(state, config, quota, { now, centsToday });
  console.log(input.opts.json === true ? planJson(plan) : formatPlan(plan));
  return EXIT.ok;
}
