/** A UTC day in ms, as Date counts it (no leap seconds): the one definition, clocks and day keys alike. */
export const DAY_MS = 86_400_000;
/** An hour in ms. */
export const HOUR_MS = 3_600_000;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A `YYYY-MM-DD` that names a real day. The pattern alone lets `2024-02-30` through, and
 * DuckDB refuses it as a DATE: one such review would fail its whole batch (and stop the
 * run) instead of going to quarantine alone.
 *
 * Read digit by digit: every review of a sync passes here twice (the response check and the
 * loader's), and a regex plus a Date per review showed in profiles.
 */
export function isCalendarDay(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false; // '-'
  const y = digits(s, 0, 4);
  const m = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  if (y < 0 || m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]!);
}

/** The number written by s[from, to) in ASCII digits, or -1 if any is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * Days from 1970-01-01 to a day `isCalendarDay` accepted (negative before it). The loader
 * stages review days as this number: a string per review cost the appender a native call,
 * and DuckDB a cast.
 */
export function epochDay(s: string): number {
  let y = digits(s, 0, 4);
  const m = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  // Days from civil (H. Hinnant): years that start in March, so the leap day comes last.
  if (m <= 2) y -= 1;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
