/**
 * Marks on Node's performance timeline at the boundaries of a run's stages and of the steps
 * inside open and finish. They cost a microsecond each and change nothing a run does; they
 * exist so `npm run bench:scale` can say how long the run spent outside the fetch (the
 * whole-run latency target of issue 16 counts open and finish too) without a profiler.
 * A run clears the marks of the one before, so a scheduled sync's timeline never grows.
 */
const PREFIX = 'fragsync:';

/** Marks the start of `step`; it lasts until the next mark. */
export function stageMark(step: string): void {
  performance.mark(`${PREFIX}${step}`);
}

/** Forgets the marks of an earlier run in this process. */
export function clearStageMarks(): void {
  for (const m of performance.getEntriesByType('mark'))
    if (m.name.startsWith(PREFIX)) performance.clearMarks(m.name);
}

/** Each marked step of the last run, in order, and how long it lasted (to the next mark). */
export function stageTimes(): { step: string; ms: number }[] {
  const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith(PREFIX));
  return marks.slice(0, -1).map((m, i) => ({
    step: m.name.slice(PREFIX.length),
    ms: marks[i + 1]!.startTime - m.startTime,
  }));
}
