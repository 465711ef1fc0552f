import { describe, expect, test } from 'vitest';
import { isCalendarDay } from '../../src/util/calendar-day.ts';

/** The obvious reading, as the oracle: the pattern, then the day JavaScript's Date makes of it. */
function oracle(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(2000, mo - 1, d));
  t.setUTCFullYear(y);
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

describe('isCalendarDay', () => {
  test('agrees with the Date oracle on every month and day number of leap and common years', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    let checked = 0;
    for (const y of [1600, 1900, 1999, 2000, 2023, 2024, 2100, 2400, 9999])
      for (let m = 0; m <= 13; m++)
        for (let d = 0; d <= 32; d++) {
          const s = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
          expect(isCalendarDay(s), s).toBe(oracle(s));
          checked++;
        }
    expect(checked).toBe(9 * 14 * 33);
  });

  test('refuses what is not YYYY-MM-DD', () => {
    for (const s of [
      '2024-2-01',
      '2024-02-1',
      '2024/02/01',
      '2024-02-01T00:00',
      ' 2024-02-01',
      '2024-0a-01',
      '',
      '20240201',
    ])
      expect(isCalendarDay(s), s).toBe(false);
    expect(isCalendarDay('2024-02-29')).toBe(true);
    expect(isCalendarDay('2023-02-29')).toBe(false);
    expect(isCalendarDay('2024-04-31')).toBe(false);
  });
});
