import type { Config } from '../config/index.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';
import type { ItemState, SyncState } from '../warehouse/state-types.ts';
import type { DueRule } from './freshness.ts';
import { HOUR_MS } from '../util/calendar-day.ts';

/**
 * The order in which a nightly spends what is left after the walks, the new items and the
 * signals (issue 15, item 4): first the fragrances on a chart or in the trending feed (what
 * people look at today), then the other due refreshes by age × popularity, stalest and most
 * popular first. The sync's frontier (src/sync/frontier.ts) and the planner
 * (src/plan/nightly-order.ts) both sort by `compareDue`, so `plan` names the items a capped
 * nightly refreshes.
 *
 * Popularity: the API has no popularity field. The review total (pagination.total of the
 * review list) is the only count of community engagement it gives for every fragrance; the
 * score is a rating, not a count, and charts name only a few hundred. For a brand, perfumer
 * or note, the fragrances it covers in the warehouse. Both are damped by a logarithm: with a
 * linear weight a fragrance with 5,000 reviews would be refreshed before one with 5 that a
 * cap had skipped for a thousand nights; with ln it is worth about 5 nights of age (the
 * crawler results in shared/notes/freshness.md weight freshness, they do not starve items).
 */
export interface DueItem {
  entity: EntityKind;
  key: string;
  /** On a chart or in the trending feed: refreshed before any other due item. */
  hot: boolean;
  /** Age in hours of its oldest due dataset (never fetched: Infinity) × popularity. */
  score: number;
}

/** 1 + ln(1 + n): n reviews for a fragrance, members for a brand, perfumer or note. */
export function popularity(
  state: Pick<SyncState, 'reviewTotals' | 'brandCatalogueSizes' | 'members'>,
  entity: EntityKind,
  key: string,
): number {
  const n =
    entity === 'fragrance'
      ? state.reviewTotals.get(key)
      : entity === 'brand'
        ? state.brandCatalogueSizes.get(key)
        : state.members?.get(`${entity}|${key}`);
  return 1 + Math.log1p(n ?? 0);
}

/** Hot first, then the larger score, then entity and key: a total order, the same everywhere. */
export function compareDue(a: DueItem, b: DueItem): number {
  if (a.hot !== b.hot) return a.hot ? -1 : 1;
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.entity !== b.entity) return a.entity < b.entity ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The item's age × popularity over the datasets `due` owes (among `datasets`), or null when
 * none is due. Age counts from `now`; a dataset never fetched is infinitely old.
 */
export function dueScore(
  item: ItemState,
  datasets: readonly Dataset[],
  due: DueRule,
  now: Date,
  pop: number,
): number | null {
  let oldest: number | null = null;
  for (const ds of datasets) {
    const at = item.fetched[ds];
    if (!due.owed(item.entity, ds, item.key, at)) continue;
    const age = at === undefined ? Number.POSITIVE_INFINITY : ageMs(due, at, now) / HOUR_MS;
    if (oldest === null || age > oldest) oldest = age;
  }
  return oldest === null ? null : oldest * pop;
}

/** The age of a fetch stored at `at`: on the service's clock when the rule knows it. */
export function ageMs(due: DueRule, at: string, now: Date): number {
  return due.ageMs ? due.ageMs(at) : now.getTime() - Date.parse(at);
}

/** The datasets of `entity` the config mirrors and the nightly refreshes (what dueScore looks at). */
export function datasetsOf(d: Config['datasets'], entity: EntityKind): Dataset[] {
  switch (entity) {
    case 'fragrance': {
      const on: [Dataset, boolean][] = [
        ['profile', d.fragrances],
        ['similar', d.similar],
        ['wearing', d.wearing],
        ['reviews', d.reviews.mode !== 'none'],
        ['reviewDigest', d.reviewDigest],
      ];
      return on.filter(([, yes]) => yes).map(([ds]) => ds);
    }
    case 'brand':
      return d.brands ? ['profile', 'catalogue'] : [];
    case 'perfumer':
      return d.perfumers ? ['profile'] : [];
    case 'note':
      return d.notes ? ['profile'] : [];
    default:
      return [];
  }
}
