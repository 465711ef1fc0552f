import type { JobSpec } from '../../jobs/types.ts';
import type { Config } from '../config/index.ts';
import type { ApiCallItem } from '../domain/calls.ts';
import type { Governor } from '../governor/types.ts';
import { nightlyRule } from '../plan/freshness.ts';
import type { Frontier } from './frontier.ts';
import { governorOffset } from './governor-offset.ts';
import type { OpenRun } from './types.ts';

/**
 * The service's clock as this run's answers tell it (the governor learns the offset from their
 * Date headers): whether any answer came yet, the offset learnt as the walks end, and the
 * nightly's due rule judged again on it (retime). The fetch stage asks; this holds no job.
 */
export class RunClock {
  /** Whether any response arrived (the governor's clock offset means something only then). */
  private answered = false;
  /** The service's clock minus this machine's, as this run's responses told the governor. */
  private offsetMs = 0;
  /** The run's governor, once the driver's context names it; none: the offset stays 0. */
  governor: Governor | undefined;

  constructor(
    private readonly run: OpenRun,
    private readonly freshness: Config['freshness'],
    private readonly frontier: Frontier,
  ) {}

  /** A job's calls came back: true when they hold the run's first answer. */
  answeredBy(calls: readonly ApiCallItem[]): boolean {
    if (this.answered || !calls.some((c) => c.status > 0)) return false;
    return (this.answered = true);
  }

  /** The offset as the governor has it now; null before any answer, without a governor, or unknown. */
  async offset(): Promise<number | null> {
    return this.answered ? governorOffset(this.governor) : null;
  }

  /** As the walks end (the only job in flight then), the offset their responses showed. */
  async learn(): Promise<void> {
    if (this.governor) this.offsetMs = (await this.governor.status()).clockOffsetMs;
  }

  /**
   * A nightly's due rule on the service's clock: ages are judged against the run's start as
   * the service's clock showed it (a day the service passed is a day, whatever this machine's
   * clock says), and each stored fetch time as the service's clock showed it to the run that
   * stored it (sync_run_clocks). Against a real service the offsets are about 0.
   */
  retime(): JobSpec[] {
    const start = new Date(this.run.started.getTime() + this.offsetMs);
    if (Math.abs(this.offsetMs) >= 60_000)
      this.run.log.info({ clockOffsetMs: this.offsetMs }, "due refreshes judged on the service's clock");
    return this.frontier.retime(nightlyRule(this.freshness, start, this.frontier.clock), start);
  }
}
