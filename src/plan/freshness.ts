import type { Config } from '../config/index.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';
import type { ClockMark } from '../warehouse/state-types.ts';
import { serviceClock, type ServiceClock } from '../warehouse/service-clock.ts';
import { DAY_MS, HOUR_MS } from '../util/calendar-day.ts';

/**
 * When an item's dataset is owed again. Two rules, one question (`owed`), asked by the sync's
 * frontier and by the planner alike, so the plan prices exactly what the sync will fetch:
 *
 * - full: everything not fetched since the cycle began (the first sync, `--full`, and the
 *   rest of an interrupted full cycle);
 * - nightly: what the freshness policy says is due. A dataset whose maximum age is a day or
 *   less is due once its age reaches that maximum (less graceHours: yesterday's run fetched
 *   its items over the hours it ran). A longer age is spread over the nights as a rolling
 *   slice: an item is due on the night its key hashes to (one night in ceil(maxAge / 24)),
 *   once it was not fetched that same day, and in any case once the whole age has passed.
 *   So a weekly dataset costs a seventh of it each night instead of all of it every seventh
 *   night, and each item is still at most a week old. (Crawlers found fixed and spread
 *   spacing give the same long-run freshness at the same rate: shared/notes/freshness.md.)
 *
 * Signals (a new id, a brand whose membership moved, a removed item a similar list named)
 * are not this rule's business: the frontier owes those whatever the age.
 */
export type SyncMode = 'full' | 'nightly';

export interface DueRule {
  readonly mode: SyncMode;
  /** Whether `dataset` of `entity` `key`, last fetched at `fetchedAt` (ISO), is owed. */
  owed(entity: EntityKind, dataset: Dataset, key: string, fetchedAt: string | undefined): boolean;
  /** A nightly's: the age (ms) of a fetch stored at `fetchedAt`, on the service's clock. */
  ageMs?(fetchedAt: string): number;
  /** A nightly's before the service's clock is known (nightlyRule with `now` null): no ages. */
  readonly untimed?: true;
}

/** The policy's maximum age per entity and dataset (hours); absent: never fetched by itself. */
export function maxAgeHours(
  policy: Config['freshness'],
  entity: EntityKind,
  dataset: Dataset,
): number | undefined {
  if (entity === 'fragrance') {
    switch (dataset) {
      case 'profile':
        return policy.profileMaxAgeHours;
      case 'reviews':
        return policy.reviewsMaxAgeHours;
      case 'similar':
        return policy.similarMaxAgeHours;
      case 'wearing':
        return policy.wearingMaxAgeHours;
      case 'reviewDigest':
        return policy.reviewDigestMaxAgeHours;
      default:
        return undefined;
    }
  }
  // Charts are read whole every day: their leaderboards are dated snapshots of what is hot.
  if (entity === 'chart') return dataset === 'profile' ? policy.chartMaxAgeHours : undefined;
  if (entity === 'brand')
    return dataset === 'profile' || dataset === 'catalogue' ? policy.entityMaxAgeHours : undefined;
  if (entity === 'perfumer' || entity === 'note')
    return dataset === 'profile' ? policy.entityMaxAgeHours : undefined;
  return undefined;
}

/**
 * Every (entity, dataset) the policy covers among the datasets the config mirrors, for the
 * warehouse's freshness_policy table (and so the `freshness` view).
 */
export function policyRows(config: Config): { entity: EntityKind; dataset: Dataset; maxAgeHours: number }[] {
  const d = config.datasets;
  const pairs: [EntityKind, Dataset, boolean][] = [
    ['fragrance', 'profile', d.fragrances],
    ['fragrance', 'reviews', d.reviews.mode !== 'none'],
    ['fragrance', 'similar', d.similar],
    ['fragrance', 'wearing', d.wearing],
    ['fragrance', 'reviewDigest', d.reviewDigest],
    ['brand', 'profile', d.brands],
    ['brand', 'catalogue', d.brands],
    ['perfumer', 'profile', d.perfumers],
    ['note', 'profile', d.notes],
    ['chart', 'profile', d.charts],
  ];
  return pairs
    .filter(([, , on]) => on)
    .map(([entity, dataset]) => ({
      entity,
      dataset,
      maxAgeHours: maxAgeHours(config.freshness, entity, dataset) ?? 0,
    }));
}

/**
 * The rule of the next sync: `--full`, or a warehouse with no completed full sync, runs full
 * (the open cycle, or a new one from `now`); otherwise the nightly. The sync decides the same
 * way (src/sync/open-run.ts runMode); SyncState.lastCompletedRun is the last completed full run.
 */
export function dueRule(
  state: { cycleStart: string | null; lastCompletedRun: string | null; clocks?: ClockMark[] },
  config: Config,
  now: Date,
): DueRule {
  if (config.full || state.lastCompletedRun === null) return fullRule(state.cycleStart ?? now.toISOString());
  return nightlyRule(config.freshness, now, serviceClock(state.clocks));
}

/** Everything not fetched since `cycleStart` (ISO) is owed. */
export function fullRule(cycleStart: string): DueRule {
  return {
    mode: 'full',
    owed: (_e, _d, _k, fetchedAt) => fetchedAt === undefined || fetchedAt < cycleStart,
  };
}

/**
 * `now` is the run's start on the service's clock: the sync judges again once the walks told
 * it (src/sync/fetch-stage.ts retime); `plan`, sending nothing, passes this machine's now plus
 * the offset last recorded. Stored fetch times are put on the service's clock by `clock` (the
 * offset of the run that stored each, src/warehouse/service-clock.ts).
 *
 * `now` null: the sync before its walks have told the service's clock. Only what was never
 * fetched is owed then (no age can be judged, by this machine's day or any other), and the
 * rule is `untimed`, so nothing scores ages by it (src/sync/rank.ts): the sync judges every
 * age once, by the rule on the service's clock, when the walks end.
 */
export function nightlyRule(
  policy: Config['freshness'],
  now: Date | null,
  clock: ServiceClock = serviceClock(),
): DueRule {
  if (now === null) return { mode: 'nightly', untimed: true, owed: (_e, _d, _k, at) => at === undefined };
  const nowMs = now.getTime();
  const graceMs = policy.graceHours * HOUR_MS;
  const day = Math.floor(nowMs / DAY_MS);
  return {
    mode: 'nightly',
    ageMs: (fetchedAt) => nowMs - clock.at(fetchedAt),
    owed(entity, dataset, key, fetchedAt) {
      if (fetchedAt === undefined) return true;
      const maxAge = maxAgeHours(policy, entity, dataset);
      if (maxAge === undefined) return false;
      const age = nowMs - clock.at(fetchedAt);
      if (age >= maxAge * HOUR_MS - graceMs) return true;
      const slices = Math.ceil(maxAge / 24);
      if (slices <= 1 || age < DAY_MS - graceMs) return false;
      return sliceOf(`${entity}|${key}`, slices) === day % slices;
    },
  };
}

/** FNV-1a: a stable, even spread of keys over the slices, the same in plan and sync. */
export function sliceOf(key: string, slices: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % slices;
}
