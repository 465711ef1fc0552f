import { job, specKey } from '../../jobs/job-id.ts';
import type { JobKind, JobSpec } from '../../jobs/types.ts';
import { Fifo } from '../queue/fifo.ts';
import { LazyQueuedJob, type QueuedJob } from '../queue/types.ts';

/** One priority's jobs in order: an item's key where the payload is only that, else the spec. */
interface Lane {
  kinds: Fifo<JobKind | null>;
  entries: Fifo<string | JobSpec>;
}

/**
 * Jobs owed and not yet handed to the queue driver, kept compactly: most are an item's job
 * whose payload is its id or slug (a review job's known total and count are null in a full
 * sync), stored as the key string the frontier already holds, next to its kind. A 120k
 * catalogue owes about 360,000 detail jobs while its profiles are still being fetched; as
 * job objects waiting in the driver they were the largest per-item state of the sync's heap
 * (and of Redis with BullMQ).
 */
export class Backlog {
  private readonly lanes = new Map<number, Lane>();
  /** The priorities present in `lanes`, lowest (first taken) first. */
  private priorities: number[] = [];
  /** Per kind, the payload's keys in order when only `id` or `slug` is not null (its shape). */
  private readonly shapes = new Map<JobKind, string[]>();
  size = 0;

  add(spec: JobSpec): void {
    let lane = this.lanes.get(spec.priority);
    if (!lane) {
      lane = { kinds: new Fifo(), entries: new Fifo() };
      this.lanes.set(spec.priority, lane);
      this.priorities = [...this.lanes.keys()].sort((a, b) => a - b);
    }
    const key = this.compactKey(spec);
    lane.kinds.push(key === undefined ? null : spec.kind);
    lane.entries.push(key ?? spec);
    this.size++;
  }

  /** The next job by priority (first in, first out within one), or undefined when empty. */
  take(): JobSpec | undefined {
    for (const priority of this.priorities) {
      const lane = this.lanes.get(priority)!;
      const entry = lane.entries.shift();
      if (entry === undefined) continue;
      const kind = lane.kinds.shift()!;
      this.size--;
      if (typeof entry !== 'string') return entry;
      const shape = this.shapes.get(kind!)!;
      const payload: Record<string, string | null> = {};
      for (const k of shape) payload[k] = k === 'id' || k === 'slug' ? entry : null;
      return job(kind!, payload as never, priority);
    }
    return undefined;
  }

  /** The item key of a payload that is that key and nulls only, in the kind's usual shape. */
  private compactKey(spec: JobSpec): string | undefined {
    const payload = spec.payload as Record<string, unknown>;
    const keys = Object.keys(payload);
    let key: string | undefined;
    for (const k of keys) {
      const v = payload[k];
      if ((k === 'id' || k === 'slug') && typeof v === 'string' && key === undefined) key = v;
      else if (v !== null) return undefined;
    }
    if (key === undefined) return undefined;
    const shape = this.shapes.get(spec.kind);
    if (shape === undefined) this.shapes.set(spec.kind, keys);
    else if (shape.length !== keys.length || shape.some((k, i) => k !== keys[i])) return undefined;
    return key;
  }
}

/**
 * How many jobs the queue driver holds at once: owed jobs wait in a Backlog and are handed
 * to the driver as earlier ones end, so the driver (the in-process queue, or Redis with
 * BullMQ) never holds more than `windowJobs` of them, in the same priority order. Jobs are
 * counted by content (specKey) from hand-over to their end (done, or failed for good): a job reported twice
 * ends once, a retried or paused one stays in the driver.
 */
export class Admission {
  private readonly backlog = new Backlog();
  private readonly inDriver = new Set<string>();

  constructor(
    private readonly runId: string,
    private readonly windowJobs: number,
  ) {}

  /** Jobs owed but not handed to the driver yet. */
  get waiting(): number {
    return this.backlog.size;
  }

  /**
   * Takes owed jobs, and `ended`, a job that ended (done or failed for good); returns the jobs
   * the driver may have now, by priority among all that wait.
   */
  add(specs: JobSpec[], ended?: QueuedJob): QueuedJob[] {
    for (const spec of specs) this.backlog.add(spec);
    if (ended?.runId === this.runId) this.inDriver.delete(specKey(ended.spec));
    return this.admit();
  }

  private admit(): QueuedJob[] {
    const out: QueuedJob[] = [];
    while (this.inDriver.size < this.windowJobs) {
      const spec = this.backlog.take();
      if (spec === undefined) break;
      this.inDriver.add(specKey(spec));
      out.push(new LazyQueuedJob(this.runId, spec));
    }
    return out;
  }
}
