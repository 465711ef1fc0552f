import type { JobMark } from '../../jobs/types.ts';
import type { Config } from '../config/index.ts';
import { costOf, fragranceCalls, fragranceDataWanted, fullNeed } from '../plan/cost-model.ts';
import { owedWork } from '../plan/owed.ts';
import { serviceClock } from '../warehouse/service-clock.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import type { RunEstimate } from './run-estimate.ts';

/**
 * A nightly's calls in all, from what it plans: the items the freshness policy and the
 * signals of earlier runs owe, and their pages, priced as `fragsync plan` prices them
 * (plan/owed.ts), so that "of ~N" is close from the first progress line. Counted from the
 * jobs alone it grew as the walks and the gate let work out (1,954 shown, 2,462 made).
 *
 * The plan judges ages at the run's start on the service's clock, known from the first answer
 * (a service whose day passed is a day on: the simulator's advance-day), so it is priced then.
 * The fragrance list's page 1 then tells the day's new fragrances (its total beyond the live
 * ones stored), each priced complete. Not in it: what today's signals will owe (the similar
 * lists a release or a reformulation moves), known only as the run reads them.
 */
export class NightlyEstimate implements RunEstimate {
  private planned: number | null = null;
  private listTotal: number | null = null;
  private readonly liveFragrances: number;
  /** Calls of one new fragrance, complete (its profile, one review page, similar, wearing). */
  private readonly perNew: number;

  constructor(
    private readonly state: SyncState,
    private readonly config: Config,
    private readonly started: Date,
  ) {
    const d = config.datasets;
    this.liveFragrances = state.items.filter((i) => i.entity === 'fragrance' && !i.removed).length;
    this.perNew = fragranceDataWanted(d)
      ? costOf(fragranceCalls(fullNeed(d, 1), {}, config.objective)).calls
      : 0;
  }

  /** Without a governor's figure, the offset the last run recorded. */
  clock(offsetMs: number | null): void {
    if (this.planned !== null) return;
    const offset = offsetMs ?? serviceClock(this.state.clocks).lastOffsetMs ?? 0;
    const now = new Date(this.started.getTime() + offset);
    this.planned = costOf(owedWork(this.state, this.config, now).counts).calls;
  }

  observe(marks: readonly JobMark[]): void {
    for (const m of marks)
      if (m.kind === 'walk' && m.walk === 'fragrances@1' && m.done) this.listTotal = m.total;
  }

  total(callsMade: number): number | null {
    if (this.planned === null) return null;
    const fresh = this.listTotal === null ? 0 : Math.max(0, this.listTotal - this.liveFragrances);
    return Math.max(callsMade, this.planned + fresh * this.perNew);
  }
}
