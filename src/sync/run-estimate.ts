import type { JobMark } from '../../jobs/types.ts';

/**
 * What the progress line asks of a run's estimate (call-estimate.ts builds one per mode: a
 * full run's CallEstimate, a nightly's NightlyEstimate). Apart from both, so that neither
 * module imports the interface from the other.
 */
export interface RunEstimate {
  /** A done job's marks. */
  observe(marks: readonly JobMark[]): void;
  /** The calls the run is expected to make in all; null while unknown. */
  total(callsMade: number): number | null;
  /** The service's clock offset the run's first answer showed (a nightly judges ages on it); null: unknown. */
  clock(offsetMs: number | null): void;
}
