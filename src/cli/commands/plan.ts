import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, oneLine } from '../../errors.ts';
import { formatPlan } from '../../plan/format.ts';
import { buildPlan, type QuotaSnapshot } from '../../plan/plan.ts';
import { serviceClock, serviceDay } from '../../plan/service-clock.ts';
import { emptySyncState } from '../../warehouse/state-types.ts';
import { checkCreatableDir } from '../../util/writable-dir.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';
import { configOf, type CommandInput } from '../spec.ts';

/**
 * `fragsync plan`: what the next sync would spend, from the warehouse and the config. It
 * reads the warehouse read-only and never builds an HTTP client: planning costs nothing.
 */

type ReadOnlyWarehouse = Pick<Warehouse, 'syncState' | 'query' | 'spendOnDay' | 'close'>;

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
        quota = await lastSeenQuota(wh);
        // The day cap's day is the service's, as the last run saw its clock.
        centsToday = await spentToday(wh, serviceDay(now, serviceClock(state.clocks).lastOffsetMs));
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
  console.log(formatPlan(plan));
  return EXIT.ok;
}

/**
 * The lowest X-RateLimit-Remaining of the UTC day of the newest ledger row: concurrent calls
 * settle out of order, and within one window remaining only falls. The window ends at the
 * next UTC midnight (the warehouse session runs in UTC).
 */
async function lastSeenQuota(wh: ReadOnlyWarehouse): Promise<QuotaSnapshot | null> {
  const rows = await wh.query<{ remaining: number | null; at_ms: number | null }>(
    `WITH last AS (SELECT max("at") AS at FROM api_calls WHERE quota_remaining IS NOT NULL)
     SELECT CAST(min(c.quota_remaining) AS DOUBLE) AS remaining, CAST(epoch_ms(max(c."at")) AS DOUBLE) AS at_ms
     FROM api_calls c, last
     WHERE c.quota_remaining IS NOT NULL AND c."at" >= CAST(CAST(last.at AS DATE) AS TIMESTAMPTZ)`,
  );
  const row = rows[0];
  if (!row || row.remaining === null || row.at_ms === null) return null;
  const at = new Date(Number(row.at_ms));
  const resetAt = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  return { remaining: Number(row.remaining), limit: null, resetAt };
}

async function spentToday(wh: ReadOnlyWarehouse, day: string): Promise<number> {
  return (await wh.spendOnDay(day)).cents;
}
