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
