import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONFIG_FLAGS, configHelp, loadConfig, type Config } from '../../config/index.ts';
import { ConfigError, oneLine } from '../../errors.ts';
import { formatPlan } from '../../plan/format.ts';
import { buildPlan, type QuotaSnapshot } from '../../plan/plan.ts';
import { emptySyncState } from '../../warehouse/state-types.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { EXIT } from '../exit-codes.ts';

/**
 * `fragsync plan`: what the next sync would spend, from the warehouse and the config. It
 * reads the warehouse read-only and never builds an HTTP client: planning costs nothing.
 */

type ReadOnlyWarehouse = Pick<Warehouse, 'syncState' | 'query' | 'spendOnDay' | 'close'>;

export async function run(argv: string[]): Promise<number> {
  let config: Config;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: CONFIG_FLAGS, allowPositionals: true });
    if (values.help) {
      console.log(
        `Usage: fragsync plan [options]\n\nPrints the calls and cents the next sync would spend.\n\n${configHelp()}`,
      );
      return EXIT.ok;
    }
    if (positionals.length > 0) throw new ConfigError(`plan: unexpected argument '${positionals[0]}'`);
    config = loadConfig({ flags: values as Record<string, string | boolean | undefined>, env: process.env });
  } catch (err) {
    console.error(`fragsync plan: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
    return EXIT.badInput;
  }

  const now = new Date();
  let state = emptySyncState();
  let quota: QuotaSnapshot | null = null;
  let centsToday = 0;
  if (existsSync(config.dbPath)) {
    try {
      // Loaded lazily so that an absent warehouse file never pays for DuckDB.
      const { Warehouse } = await import('../../warehouse/warehouse.ts');
      const wh: ReadOnlyWarehouse = await Warehouse.open(config.dbPath, { readOnly: true });
      try {
        state = await wh.syncState();
        quota = await lastSeenQuota(wh);
        centsToday = await spentToday(wh, now);
      } finally {
        await wh.close();
      }
    } catch (err) {
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

async function spentToday(wh: ReadOnlyWarehouse, now: Date): Promise<number> {
  return (await wh.spendOnDay(now.toISOString().slice(0, 10))).cents;
}
