import { describe, expect, test } from 'vitest';
import { epochDay, isCalendarDay } from '../../src/util/calendar-day.ts';

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

test('epochDay counts days from 1970-01-01, as Date does, across leap days and centuries', () => {
  for (const day of [
    '1970-01-01',
    '1969-12-31',
    '2000-02-29',
    '2000-03-01',
    '2100-03-01',
    '1900-02-28',
    '2024-12-31',
  ])
    expect(epochDay(day)).toBe(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
  expect(epochDay('0000-03-01')).toBe(-719_468); // year 0 is a leap year (proleptic Gregorian)
  expect(epochDay('9999-12-31')).toBe(2_932_896);
});
