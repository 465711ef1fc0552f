import { serviceClock, serviceDay } from './service-clock.ts';
import { QUOTA_ROWS_NEAR_NEWEST, ROWS_NEAR_DAY, withServiceCalls } from './run-sql.ts';
import { sqlFile } from './sql-files.ts';
import { readClocks } from './sync-state.ts';

/**
 * The ledger's figures for "today", on the service's UTC day: the day its per-day cap and its
 * quota window count. `status`, `plan`, the dashboard and a sync's governor read them here,
 * so none of them cuts the day on this machine's clock (after the service's day moved, the
 * dashboard showed this machine's day and plan the previous service day's quota low).
 */
type Query = <T>(sql: string, params?: unknown[]) => Promise<T[]>;
interface Reader {
  query: Query;
}

/** Calls and cents of one service day (YYYY-MM-DD), all runs. */
export async function spendOnServiceDay(wh: Reader, day: string): Promise<{ calls: number; cents: number }> {
  const [row] = await wh.query<{ calls: number; cents: number }>(
    withServiceCalls(sqlFile('runs/spend-on-day.sql'), ROWS_NEAR_DAY),
    [day],
  );
  return { calls: Number(row?.calls ?? 0), cents: Number(row?.cents ?? 0) };
}

/** The service's day at `now` by the offset the last run recorded (none: this machine's day). */
async function serviceToday(wh: Reader, now = new Date()): Promise<string> {
  const clocks = await readClocks((sql) => wh.query(sql));
  return serviceDay(now, serviceClock(clocks).lastOffsetMs);
}

/** The ledger's calls and cents on the service's day at `now`. */
export async function ledgerToday(
  wh: Reader,
  now = new Date(),
): Promise<{ day: string; calls: number; cents: number }> {
  const day = await serviceToday(wh, now);
  return { day, ...(await spendOnServiceDay(wh, day)) };
}

export interface LedgerQuota {
  /** The lowest remaining the service answered on `day`. */
  remaining: number;
  /** When the newest call carrying it was made (ISO, this machine's clock). */
  sent: string;
  /** The service's UTC day of the newest call carrying a quota. */
  day: string;
  /** The end of that day (the quota's reset) on this machine's clock, by that call's offset. */
  resetAt: Date;
  /**
   * That service day is over at `now` (the service's day by the offset the last run recorded,
   * the day `ledgerToday` counts): the quota has been renewed since `resetAt`, so `remaining`
   * is not what is left now. The ledger keeps no X-RateLimit-Limit: what is left is unknown here.
   */
  renewed: boolean;
}

/**
 * The quota as the ledger last saw it, on the service's day; null when no call carried one.
 * The day first (the newest row carrying a quota), then its low: each reads through the clock
 * join only the rows that can matter, not the whole ledger.
 */
export async function ledgerQuota(wh: Reader, now = new Date()): Promise<LedgerQuota | null> {
  const [last] = await wh.query<{ day: string; offset_ms: number }>(
    withServiceCalls(sqlFile('runs/quota-newest.sql'), QUOTA_ROWS_NEAR_NEWEST),
  );
  if (!last) return null;
  const [row] = await wh.query<{ remaining: number; sent: string }>(
    withServiceCalls(sqlFile('runs/quota-on-service-day.sql'), ROWS_NEAR_DAY),
    [last.day],
  );
  if (!row) return null;
  const nextDay = Date.parse(`${last.day}T00:00:00Z`) + 86_400_000;
  return {
    remaining: Number(row.remaining),
    sent: row.sent,
    day: last.day,
    resetAt: new Date(nextDay - Number(last.offset_ms)),
    renewed: (await serviceToday(wh, now)) > last.day,
  };
}
