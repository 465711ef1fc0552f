import type { JobMark } from '../../jobs/types.ts';
import type { Config } from '../config/index.ts';
import { datasetsOf } from '../plan/priority.ts';
import type { Dataset } from '../domain/entities.ts';
import type { SyncMode } from '../plan/freshness.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import { NightlyEstimate } from './nightly-estimate.ts';
import type { RunEstimate } from './run-estimate.ts';

/**
 * The calls a full run will make, as soon as the fragrance list's first page tells the
 * catalogue's size, for the progress line's "of ~N" and its ETA.
 *
 * The jobs already scheduled say too little early in a full run: each list page names 50
 * fragrances whose profiles are not scheduled yet, and each profile opens more jobs
 * (similar, wearing, reviews). Counted from the jobs alone, a 500-fragrance sync said "of
 * ~1,088" at 420 calls and made 2,379. From the list's total, each fragrance dataset the
 * config wants costs one call per fragrance not yet read (one review page: the jobs count the
 * rest once they are scheduled); brands, perfumers and notes come on top and are counted by
 * the jobs, so the progress line shows the larger of the two.
 *
 * A nightly's estimate is its plan (nightly-estimate.ts). The `calls` objective buys some of
 * a full run's datasets together (one enrich call): not estimated here.
 */
export class CallEstimate implements RunEstimate {
  private listTotal: number | null;
  /** Per fragrance dataset wanted: fragrances this cycle read it for. */
  private readonly read = new Map<string, number>();

  /**
   * `wanted`: the fragrance datasets a full sync reads for every fragrance (plan/priority.ts datasetsOf);
   * `start`: per dataset, the fragrances this cycle already read (a resumed backfill), and the
   * list's total if an earlier run of the cycle read its page 1 today.
   */
  constructor(
    wanted: readonly Dataset[],
    start: { read: Partial<Record<Dataset, number>>; listTotal: number | null },
  ) {
    for (const ds of wanted) this.read.set(ds, start.read[ds] ?? 0);
    this.listTotal = start.listTotal;
  }

  /** A done job's marks: page 1 of the fragrance list gives its total; each dataset read counts down. */
  observe(marks: readonly JobMark[]): void {
    for (const m of marks) {
      if (m.kind === 'walk' && m.walk === 'fragrances@1' && m.done) this.listTotal = m.total;
      else if (m.kind === 'fetched' && m.entity === 'fragrance') {
        const n = this.read.get(m.dataset);
        if (n !== undefined) this.read.set(m.dataset, n + 1);
      }
    }
  }

  /** A full run judges no ages: its offset changes nothing. */
  clock(): void {}

  /** The calls the run is expected to make in all, from the list's total; null before it is known. */
  total(callsMade: number): number | null {
    if (this.listTotal === null || this.read.size === 0) return null;
    let left = 0;
    for (const n of this.read.values()) left += Math.max(0, this.listTotal - n);
    return callsMade + left;
  }
}

/** Where the run starts from: the frontier's counts of what this cycle read (Frontier.startingPoint). */
interface Start {
  startingPoint(datasets: readonly Dataset[]): ConstructorParameters<typeof CallEstimate>[1];
}

/**
 * The estimate of a run: a nightly's from its plan (NightlyEstimate), a full run's from the
 * list's total under the `cents` objective (CallEstimate); null under `calls`: none.
 */
export function callEstimate(
  config: Config,
  run: { mode: SyncMode; state: SyncState; started: Date },
  frontier: Start,
): RunEstimate | null {
  if (run.mode === 'nightly') return new NightlyEstimate(run.state, config, run.started);
  if (config.objective !== 'cents') return null;
  const wanted = datasetsOf(config.datasets, 'fragrance');
  return new CallEstimate(wanted, frontier.startingPoint(wanted));
}
