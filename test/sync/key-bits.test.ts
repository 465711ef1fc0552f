import { describe, expect, it } from 'vitest';
import { KeyBits } from '../../src/sync/key-sets.ts';

/** A set per group: what KeyBits must answer as. */
class GroupSets {
  private readonly sets = new Map<string, Set<string>>();
  has = (g: string, k: string): boolean => this.sets.get(g)?.has(k) ?? false;
  add(g: string, k: string): void {
    const set = this.sets.get(g) ?? new Set<string>();
    this.sets.set(g, set.add(k));
  }
  delete = (g: string, k: string): boolean | undefined => this.sets.get(g)?.delete(k);
  keys = (g: string): string[] => [...(this.sets.get(g) ?? [])];
}

/**
 * KeyBits (the frontier's per-item state: one map per family, a bit per group) must answer as
 * a set per group would, whatever the number of groups and however keys are shared among them.
 */
describe('KeyBits answers as a set per group', () => {
  it('the same key in several groups, more groups than one map holds, adds and deletes mixed', () => {
    const bits = new KeyBits();
    const sets = new GroupSets();
    // 7 families of 10 groups, and 40 groups in one family (two maps), and groups with no family.
    const groups = [
      ...Array.from({ length: 70 }, (_, i) => `entity${i % 7}|dataset${i}`),
      ...Array.from({ length: 40 }, (_, i) => `fragrance|:flag${i}`),
      'nofamily',
      'walk',
    ];
    const keys = ['rose', 'f-1', 'f-2', 'oud', ''];
    // A fixed pseudo-random walk of adds and deletes over every group and key.
    let x = 12345;
    const next = (n: number) => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x % n;
    };
    for (let step = 0; step < 30_000; step++) {
      const g = groups[next(groups.length)]!;
      const k = keys[next(keys.length)]!;
      if (next(3) === 0) {
        bits.delete(g, k);
        sets.delete(g, k);
      } else {
        bits.add(g, k);
        sets.add(g, k);
      }
    }
    for (const g of [...groups, 'never-used', 'fragrance|never-used']) {
      for (const k of [...keys, 'never-added']) expect(bits.has(g, k), `${g} ${k}`).toBe(sets.has(g, k));
      expect(bits.keys(g).sort(), g).toEqual(sets.keys(g).sort());
      expect(bits.count(g), g).toBe(sets.keys(g).length);
    }
  });

  it('deleting a key from one group leaves it in the others', () => {
    const bits = new KeyBits();
    bits.add('fragrance|profile', 'f-1');
    bits.add('fragrance|similar', 'f-1');
    bits.add('fragrance|:known', 'f-2');
    bits.delete('fragrance|profile', 'f-1');
    expect(bits.has('fragrance|profile', 'f-1')).toBe(false);
    expect(bits.has('fragrance|similar', 'f-1')).toBe(true);
    bits.delete('brand|profile', 'f-1'); // a group never used
    expect(bits.has('fragrance|similar', 'f-1')).toBe(true);
    expect(bits.keys('fragrance|similar')).toEqual(['f-1']);
    expect(bits.keys('fragrance|:known')).toEqual(['f-2']);
  });
});
