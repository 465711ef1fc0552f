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
  const [cycle] = await warehouse.query<{ firstDay: string | null; completedAt: string | null }>(
    withCycle(CYCLE_END.LAST_DONE, sqlFile('runs/last-cycle.sql')),
  );
  const { firstDay, completedAt } = cycle ?? {};
  if (!firstDay || !completedAt) return [];
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
