import { PRIORITY, specId } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';
import type { IdleReason } from '../api/occupancy.ts';
import type { QueueDriver } from '../queue/types.ts';

/** The stages of a nightly, in order: each is let out once nothing of the one before is left. */
const STAGES = [PRIORITY.fresh, PRIORITY.signal, PRIORITY.due - 1, Number.POSITIVE_INFINITY];
/** The stage that opens when the signals are done: the held refreshes are ranked then. */
const RANKED = 2;

/**
 * A nightly pays in stages: first the walks, the new items (complete) and the checks of
 * removed ones; then the other signals (similar lists a change made stale); then what the
 * freshness policy says is due: those on a chart or trending first, then the rest by age ×
 * popularity (`rank`, src/sync/rank.ts, orders them when the signals are done; the charts are
 * read among the signals, so today's count). Priorities alone would not do it: a driver fills every free
 * slot at once (with BullMQ, every worker's), so later work would take the slots, and under
 * a cap the budget, while the list walk was still finding the day's new fragrances. A job a
 * signal owes sooner than the policy did (the missing fragrance's profile, held as a daily
 * refresh) leaves the held ones and goes with its stage; a job already let out is never let
 * out twice. A full sync has no gate (`off`).
 */
export class Gate {
  private stage = 0;
  /** Ids of the jobs let out and not ended: a job reported twice ends once. */
  private readonly outstanding = new Set<string>();
  private readonly sent = new Set<string>();
  private held = new Map<string, JobSpec>();

  constructor(
    private readonly off: boolean,
    /** Sets the priorities of the held jobs (their order) before the ranked stage lets any out. */
    private readonly rank: (held: JobSpec[]) => void = () => {},
    /** What is owed once the walks are done (the due rule on the service's clock, learnt by then). */
    private readonly walked: () => JobSpec[] = () => [],
  ) {}

  /** Whether `job` ending ends the walks' stage (the last of it in flight). */
  closesWalks(job: JobSpec): boolean {
    return !this.off && this.stage === 0 && this.outstanding.size === 1 && this.outstanding.has(specId(job));
  }

  /** Jobs held for a later stage. */
  get holding(): boolean {
    return this.held.size > 0;
  }

  private get open(): boolean {
    return this.stage === STAGES.length - 1;
  }

  /** The jobs to submit now; the rest is held. */
  pass(jobs: JobSpec[]): JobSpec[] {
    if (this.off) return jobs;
    const now: JobSpec[] = [];
    for (const j of jobs) {
      const id = specId(j);
      if (this.sent.has(id)) continue;
      const held = this.held.get(id);
      if (held && held.priority <= j.priority) continue;
      this.held.delete(id);
      if (!this.open && j.priority > (STAGES[this.stage] as number)) {
        this.held.set(id, j);
        continue;
      }
      this.sent.add(id);
      if (!this.open) this.outstanding.add(id);
      now.push(j);
    }
    return now;
  }

  /** A job ended (done or failed for good, or null at the start): the jobs of the next stage, when it opens. */
  ended(job: JobSpec | null): JobSpec[] {
    if (this.off || this.open) return [];
    if (job) this.outstanding.delete(specId(job));
    const out: JobSpec[] = [];
    while (this.outstanding.size === 0 && !this.open) {
      this.stage++;
      const held = [...this.held.values(), ...(this.stage === 1 ? this.walked() : [])];
      if (this.stage === RANKED) this.rank(held);
      this.held = new Map();
      out.push(...this.pass(held));
    }
    return out;
  }
}

/**
 * Why the request slots nobody holds are idle right now (api/occupancy.ts): what the driver
 * has waiting and running, or the gate holding the next stage. Read at every request.
 */
export function idleReason(driver: QueueDriver | null, gate: Gate): IdleReason {
  if (driver?.pausedUntil()) return 'paused';
  const b = driver?.backlog?.();
  if (b && b.waiting > 0) return b.running >= b.capacity ? 'jobsBusy' : 'pickup';
  if (gate.holding) return 'gate';
  return b && b.running > 0 ? 'noneReady' : 'noWork';
}
