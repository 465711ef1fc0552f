import { PRIORITY, RANK_LEVELS } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';
import type { Config } from '../config/index.ts';
import type { DueRule } from '../plan/freshness.ts';
import { compareDue, datasetsOf, dueScore, popularity, type DueItem } from '../plan/priority.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import { JOB_ITEM } from './job-item.ts';
import { itemKey } from './key-sets.ts';

/**
 * A nightly's order of due refreshes (src/plan/priority.ts compareDue): the items on a chart
 * or in the trending feed, then the rest by age × popularity. Scores are taken from the
 * warehouse when the run starts, as `plan` takes them. The charts are read before (they are
 * signals, src/sync/frontier.ts), so a fragrance that entered a chart today counts as hot.
 *
 * The gate (src/sync/gate.ts) asks for the order once, when the signals are done, and lets
 * the hot items out before the rest; the queue then takes each item's jobs by priority: its
 * rank (up to RANK_LEVELS levels, beyond that ranks share a level in order). An item's later
 * jobs (the reviews after its profile) keep its level, so a capped run refreshes whole items
 * in order, not every profile first.
 */
export class DueRanking {
  private readonly scores = new Map<string, number>();
  private readonly hot = new Set<string>();
  /** Priority per `${entity}|${key}`, once ranked. */
  private readonly levels = new Map<string, number>();

  constructor(
    private readonly state: SyncState,
    private readonly datasets: Config['datasets'],
    due: DueRule,
    now: Date,
  ) {
    this.rescore(due, now);
    for (const id of state.charted ?? []) this.hot.add(id);
  }

  /**
   * Scores the items by `due` at `now`. A nightly starts untimed (nightlyRule): its items are
   * scored once, when it has learnt the service's clock (Frontier.retime, before the gate ranks).
   */
  rescore(due: DueRule, now: Date): void {
    this.scores.clear();
    if (due.mode !== 'nightly' || due.untimed) return;
    for (const item of this.state.items) {
      if (item.removed) continue;
      const pop = popularity(this.state, item.entity, item.key);
      const score = dueScore(item, datasetsOf(this.datasets, item.entity), due, now, pop);
      if (score !== null) this.scores.set(`${item.entity}|${item.key}`, score);
    }
  }

  /** Fragrances a chart or the trending feed named in this run. */
  markHot(ids: Iterable<string>): void {
    for (const id of ids) this.hot.add(id);
  }

  /** Sets the priority of each job by its item's place in the order (held jobs, at once). */
  rank(jobs: JobSpec[]): void {
    const items = new Map<string, DueItem>();
    for (const j of jobs) {
      const entity = JOB_ITEM[j.kind]?.[0];
      const key = itemKey(j);
      if (entity === undefined || key === undefined) continue;
      const id = `${entity}|${key}`;
      if (items.has(id) || this.levels.has(id)) continue;
      const hot = entity === 'fragrance' && this.hot.has(key);
      items.set(id, { entity, key, hot, score: this.scores.get(id) ?? 0 });
    }
    const order = [...items.entries()].sort((a, b) => compareDue(a[1], b[1]));
    const hotCount = order.filter(([, i]) => i.hot).length;
    order.forEach(([id, item], i) => {
      const [base, rank, n] = item.hot
        ? [PRIORITY.hot, i, hotCount]
        : [PRIORITY.due, i - hotCount, order.length - hotCount];
      this.levels.set(id, base + (n <= RANK_LEVELS ? rank : Math.floor((rank * RANK_LEVELS) / n)));
    });
    for (const j of jobs) {
      const level = this.priorityOf(j);
      if (level !== undefined) j.priority = level;
    }
  }

  /** The ranked priority of the job's item, if it was ranked. */
  priorityOf(j: JobSpec): number | undefined {
    const entity = JOB_ITEM[j.kind]?.[0];
    const key = itemKey(j);
    if (entity === undefined || key === undefined) return undefined;
    return this.levels.get(`${entity}|${key}`);
  }
}
