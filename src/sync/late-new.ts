import type { WarehouseHandle } from '../warehouse/handle.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import { CYCLE_END, withCycle } from '../warehouse/run-sql.ts';
import { sqlFile } from '../warehouse/sql-files.ts';
import { serviceClock } from '../warehouse/service-clock.ts';
import { utcDay } from '../governor/policy.ts';

/**
 * Fragrances the nightly takes as new though a full run fetched them: those the last full
 * cycle first saw on a later service day than it began on (a backfill over several days reads
 * the lists again on each, walk-day.ts), whose profile no run fetched since that cycle
 * completed. A full run owes no signals (it fetches everything), but an item that appeared
 * upstream while it ran changed what it had read before: its brand's catalogue gained a
 * member, similar lists it entered moved. The nightly's treatment of a new item (its profile
 * first, then those signals: Frontier.absorb, similar-signals.ts) catches them up; once it
 * fetched the profile, the item is new no more.
 */
export async function lateNew(warehouse: WarehouseHandle, state: SyncState): Promise<string[]> {
  const cycle = await lastCycle(warehouse, state.clocks);
  if (!cycle) return [];
  const { firstDay, completedAt } = cycle;
  const clock = serviceClock(state.clocks);
  const done = Date.parse(completedAt);
  return state.items
    .filter(
      (i) =>
        i.entity === 'fragrance' &&
        !i.removed &&
        i.fetched.profile !== undefined &&
        Date.parse(i.fetched.profile) <= done &&
        utcDay(clock.at(i.firstSeen)) > firstDay,
    )
    .map((i) => i.key);
}

/**
 * The last completed cycle's first service day (YYYY-MM-DD: its first answered call's, on the
 * service's clock by `clocks`) and when the run that completed it finished (ISO); null when no
 * cycle completed or none of its calls was answered. One date, so not every call goes through
 * the clock join: a run's calls share one offset (the writer lock keeps runs apart: the latest
 * run started before any of them is that run, or the one before if it recorded none), so its
 * first call here is its first on the service's clock; each run's first is placed by its
 * offset (they differ between runs) and the earliest taken.
 */
export async function lastCycle(
  warehouse: Pick<WarehouseHandle, 'query'>,
  clocks: SyncState['clocks'],
): Promise<{ firstDay: string; completedAt: string } | null> {
  const firsts = await warehouse.query<{ firstAt: string; completedAt: string | null }>(
    withCycle(CYCLE_END.LAST_DONE, sqlFile('runs/last-cycle.sql'), false),
  );
  const completedAt = firsts[0]?.completedAt;
  if (!completedAt) return null;
  const clock = serviceClock(clocks);
  const first = Math.min(...firsts.map((r) => clock.at(r.firstAt)));
  return { firstDay: utcDay(first), completedAt };
}
