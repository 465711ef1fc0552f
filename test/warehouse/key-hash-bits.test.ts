import { expect, test } from 'vitest';
import { KeyHashBits } from '../../src/warehouse/key-hash-bits.ts';

/** Ids of every style the spec allows (opaque strings): slugs, opaque ids, digits, non-ASCII. */
const ids = (n: number): string[] =>
  Array.from(
    { length: n },
    (_, i) => [`house-${i % 97}/scent-${i}`, `f_${i.toString(36)}`, String(i), `été-${i}-香`][i % 4]!,
  );

test('every bit set for a key is seen for it again, through the growth of the table', () => {
  const keys = new KeyHashBits();
  const all = ids(50_000);
  all.forEach((k, i) => keys.set(k, 1 << (i % 3)));
  // A second bit for some: both are seen.
  for (let i = 0; i < all.length; i += 7) keys.set(all[i]!, 8);
  all.forEach((k, i) => {
    expect(keys.get(k) & (1 << (i % 3))).not.toBe(0);
    if (i % 7 === 0) expect(keys.get(k) & 8).toBe(8);
  });
});

test('a key never set has no bits, but for the rare one that shares a hash', () => {
  const keys = new KeyHashBits();
  for (const k of ids(50_000)) keys.set(k, 1);
  const absent = ids(50_000).map((k) => `${k}#`);
  const maybes = absent.filter((k) => keys.get(k) !== 0).length;
  expect(maybes).toBeLessThan(10);
  expect(new KeyHashBits().get('house-1/scent-1')).toBe(0);
  expect(new KeyHashBits().get('')).toBe(0);
});
