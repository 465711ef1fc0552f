import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONFIG_FLAGS, configHelp, loadConfig, type Config } from '../../config/index.ts';
import { ConfigError, oneLine } from '../../errors.ts';
import { buildPlan, formatPlan, type QuotaSnapshot } from '../../plan/plan.ts';
import type { SyncState } from '../../warehouse/state-types.ts';
import { EXIT } from '../exit-codes.ts';

/**
 * `fragsync plan`: what the next sync would spend, from the warehouse and the config. It
 * reads the warehouse read-only and never builds an HTTP client: planning costs nothing.
 */

interface ReadOnlyWarehouse {
  syncState(): Promise<SyncState>;
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}
interface WarehouseModule {
  Warehouse: { open(path: string, options: { readOnly: boolean }): Promise<ReadOnlyWarehouse> };
}

// Loaded lazily so an absent warehouse file never pays for DuckDB.
const WAREHOUSE_MODULE = '../../warehouse/warehouse.ts';

export function emptySyncState(): SyncState {
  return {
    cycleStart: null,
    lastCompletedRun: null,
    items: [],
    walks: [],
    reviewTotals: new Map(),
    similarCounts: new Map(),
    brandCatalogueSizes: new Map(),
  };
}

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
      const mod = (await import(WAREHOUSE_MODULE)) as WarehouseModule;
      const wh = await mod.Warehouse.open(config.dbPath, { readOnly: true });
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

/** The newest ledger row's X-RateLimit-Remaining; the window ends at the next UTC midnight after it. */
async function lastSeenQuota(wh: ReadOnlyWarehouse): Promise<QuotaSnapshot | null> {
  const rows = await wh.query(
    'SELECT CAST(quota_remaining AS DOUBLE) AS remaining, CAST(epoch_ms(at) AS DOUBLE) AS at_ms ' +
      'FROM api_calls WHERE quota_remaining IS NOT NULL ORDER BY at DESC LIMIT 1',
  );
  const row = rows[0];
  if (!row) return null;
  const at = new Date(Number(row.at_ms));
  const resetAt = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  return { remaining: Number(row.remaining), limit: null, resetAt };
}

async function spentToday(wh: ReadOnlyWarehouse, now: Date): Promise<number> {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const rows = await wh.query(
    `SELECT CAST(coalesce(sum(cost_cents), 0) AS DOUBLE) AS cents FROM api_calls ` +
      `WHERE at >= TIMESTAMPTZ '${midnight.toISOString()}'`,
  );
  return Number(rows[0]?.cents ?? 0);
}
