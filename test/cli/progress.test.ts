import { describe, expect, test } from 'vitest';
import { formatTick, progressReporter } from '../../src/cli/progress.ts';
import type { SyncTick } from '../../src/sync/types.ts';

const tick = (over: Partial<SyncTick> = {}): SyncTick => ({
  runId: 'run-1',
  phase: 'details',
  jobsDone: 100,
  jobsScheduled: 300,
  calls: 150,
  expectedCalls: null,
  cents: 150,
  maxCents: 1000,
  dayCentsLeft: null,
  quotaRemaining: 5000,
  pausedUntil: null,
  elapsedMs: 10_000,
  pausedMs: 0,
  ...over,
});

/** A stream as the reporter sees it: what was written, and whether it is a terminal. */
function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const s = { isTTY, text: '', write: (chunk: string) => ((s.text += chunk), true) };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe('progress', () => {
  test('the line: phase, calls done of planned, cents of budget, quota left, ETA', () => {
    // 200 jobs left at 1.5 calls and 10 jobs/s so far: 300 more calls, 20 s.
    expect(formatTick(tick())).toBe(
      'details | calls 150 of ~450 | 150/1000 cents | quota 5000 left | ETA 20s',
    );
    expect(formatTick(tick({ jobsDone: 0, calls: 0, maxCents: null, quotaRemaining: null }))).toBe(
      'details | calls 0 | 150 cents | quota ?',
    );
    const until = new Date('2030-01-02T00:00:00.000Z');
    expect(formatTick(tick({ pausedUntil: until }))).toMatch(/^paused until 2030-01-02T00:00:00\.000Z \| /);
  });

  test("a full run's list total raises the planned calls and the ETA; the larger estimate wins", () => {
    // The list said 900 calls in all: 750 left at 15 calls/s (1.5 calls a job, 10 jobs/s), 50 s.
    expect(formatTick(tick({ expectedCalls: 900 }))).toBe(
      'details | calls 150 of ~900 | 150/1000 cents | quota 5000 left | ETA 50s',
    );
    // Below what the jobs scheduled say (brands and notes on top): the jobs' figure stands.
    expect(formatTick(tick({ expectedCalls: 300 }))).toBe(
      'details | calls 150 of ~450 | 150/1000 cents | quota 5000 left | ETA 20s',
    );
  });

  test('under --max-cents the planned calls are no more than the cents left buy, on either estimate', () => {
    // As a nightly showed it: 87 of 120 cents spent in 65 calls; its plan priced 679 calls.
    // 33 cents left at 87/65 cents a call buy 24 calls more: of ~89, not of ~679.
    const nightly = tick({ calls: 65, cents: 87, maxCents: 120, expectedCalls: 679, jobsDone: 50 });
    expect(formatTick(nightly)).toMatch(/^details \| calls 65 of ~89 \| 87\/120 cents \| /);
    // A full run's list total, and the jobs' own figure (450), are capped alike: 700 cents
    // left at 2 cents a call buy 350 calls; 100 left at 10.7 cents a call buy 9.
    expect(formatTick(tick({ cents: 300, expectedCalls: 900 }))).toContain('calls 150 of ~500 |');
    expect(formatTick(tick({ cents: 1600, maxCents: 1700 }))).toContain('calls 150 of ~159 |');
    // At the cap: nothing more; without one: as priced.
    expect(formatTick(tick({ cents: 1000 }))).toContain('calls 150 of ~150 |');
    expect(formatTick(tick({ cents: 300, maxCents: null, expectedCalls: 900 }))).toContain('of ~900 |');
  });

  test("under a day cap already part spent the run plans only what the day's rest buys, the smaller cap", () => {
    // The day cap left 400 cents at the run's start, under its own cap of 1000: 250 left of
    // the day at 1 cent a call buy 250 more calls, not the 850 of the run's cap nor the 750 priced.
    const dayCapped = tick({ expectedCalls: 900, dayCentsLeft: 400 });
    expect(formatTick(dayCapped)).toMatch(/^details \| calls 150 of ~400 \| 150\/400 cents \(day cap\) \| /);
    // Without a run cap the day's rest alone; with the day's rest above the run cap, the run's.
    expect(formatTick(tick({ expectedCalls: 900, maxCents: null, dayCentsLeft: 400 }))).toContain(
      'calls 150 of ~400 | 150/400 cents (day cap) |',
    );
    expect(formatTick(tick({ expectedCalls: 2000, dayCentsLeft: 5000 }))).toContain(
      'calls 150 of ~1000 | 150/1000 cents |',
    );
    // A day spent out before the run: nothing more than the calls made.
    expect(formatTick(tick({ expectedCalls: 900, dayCentsLeft: 0 }))).toContain('calls 150 of ~150 |');
  });

  test('the ETA counts the pause in force and does not grow while it lasts', () => {
    const eta = (t: SyncTick) => /ETA (\S+)$/.exec(formatTick(t))?.[1];
    // 10 jobs/s outside the pause, 200 jobs left: 20 s of work after a pause ending in 2 h.
    const until = new Date(Date.now() + 2 * 3_600_000 + 30_000);
    const at = (pausedMs: number) => tick({ pausedUntil: until, elapsedMs: 10_000 + pausedMs, pausedMs });
    expect(eta(at(0))).toBe('2h00m');
    // Ten minutes into the pause the end is no closer on this clock, and the rate did not drop.
    expect(eta(at(600_000))).toBe('2h00m');
    expect(eta(tick({ elapsedMs: 610_000, pausedMs: 600_000 }))).toBe('20s');
  });

  test('on a terminal one line redrawn in place, cleared at the end; otherwise a plain line every 10 s', () => {
    const tty = stream(true);
    const onTty = progressReporter(tty);
    onTty.tick(tick({ elapsedMs: 1000 }));
    onTty.tick(tick({ elapsedMs: 2000 }));
    onTty.done();
    expect(tty.text.split('\r\x1b[2K')).toHaveLength(4);
    expect(tty.text).not.toContain('\n');

    const log = stream(false);
    const plain = progressReporter(log, 10_000);
    for (const ms of [10_000, 15_000, 20_000, 25_000]) plain.tick(tick({ elapsedMs: ms }));
    plain.done();
    const lines = log.text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d{2}-\d{2}T\S+Z details \| calls /);
  });
});

describe('progress on a narrow terminal', () => {
  /** What a terminal shows after the writes: the text after the last clear of the line. */
  const screen = (text: string) => text.split('\r\x1b[2K').at(-1) as string;

  test('fits the width: the ETA, quota and budget give way first, then the line is cut', () => {
    for (const [columns, expected] of [
      [120, 'details | calls 150 of ~450 | 150/1000 cents | quota 5000 left | ETA 20s'],
      [60, 'details | calls 150 of ~450 | 150/1000 cents'],
      [30, 'details | calls 150 of ~450'],
      [20, 'details | calls 15…'],
    ] as const) {
      const s = Object.assign(stream(true), { columns });
      const r = progressReporter(s);
      r.tick(tick());
      expect(screen(s.text)).toBe(expected);
      expect(screen(s.text).length).toBeLessThan(columns);
      // Redrawn in place: no newline, ever.
      r.tick(tick({ elapsedMs: 20_000 }));
      expect(s.text).not.toContain('\n');
    }
  });

  test('a paused run keeps its reason on a narrow line', () => {
    const s = Object.assign(stream(true), { columns: 50 });
    progressReporter(s).tick(tick({ pausedUntil: new Date('2030-01-02T00:00:00.000Z') }));
    expect(screen(s.text)).toBe('paused until 2030-01-02T00:00:00.000Z | calls 15…');
  });
});
