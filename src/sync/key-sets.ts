import type { JobSpec } from '../../jobs/types.ts';

/**
 * Sets of keys per group (an entity kind, or entity and dataset). A similar list names 50
 * fragrances and a 20k sync reads a million such names: a lookup in the group's set of the
 * key as parsed costs no string concatenation (the flat `${entity}|${key}` form did).
 */
export class KeySets {
  private readonly sets = new Map<string, Set<string>>();

  has(group: string, key: string): boolean {
    return this.sets.get(group)?.has(key) ?? false;
  }

  add(group: string, key: string): void {
    this.group(group).add(key);
  }

  /** The group's set itself (created empty if missing), for a loop over many keys. */
  group(group: string): Set<string> {
    let set = this.sets.get(group);
    if (!set) this.sets.set(group, (set = new Set()));
    return set;
  }

  delete(group: string, key: string): void {
    this.sets.get(group)?.delete(key);
  }

  keys(group: string): string[] {
    return [...(this.sets.get(group) ?? [])];
  }

  groups(): IterableIterator<[string, Set<string>]> {
    return this.sets.entries();
  }
}

/**
 * The item a job is for, when its payload names one (`id` or `slug`): a kind does one job per
 * item in a run (the rest of such a payload, like a review job's known total, follows from
 * the item). Walk pages and listings have no item; they are told apart by their id.
 */
export function itemKey(spec: JobSpec): string | undefined {
  const p = spec.payload as { id?: unknown; slug?: unknown };
  if (typeof p.id === 'string') return p.id;
  if (typeof p.slug === 'string') return p.slug;
  return undefined;
}

/**
 * Keys in groups, as one map from key to a bit per group (31 groups a map; more take another
 * map): the frontier's done and scheduled sets put each fragrance in six groups or more (one
 * per dataset, one per kind of job), and a Set per group held a hash-table entry per key and
 * group, the fetching thread's largest state at 120k fragrances (session 9,
 * docs/benchmarks.md). Only has, add and delete: a group's keys are not listed.
 */
export class KeyBits {
  private readonly maps: Map<string, number>[] = [];
  private readonly slots = new Map<string, { map: Map<string, number>; bit: number }>();

  has(group: string, key: string): boolean {
    const slot = this.slots.get(group);
    return slot !== undefined && ((slot.map.get(key) ?? 0) & slot.bit) !== 0;
  }

  add(group: string, key: string): void {
    const { map, bit } = this.slot(group);
    map.set(key, (map.get(key) ?? 0) | bit);
  }

  delete(group: string, key: string): void {
    const slot = this.slots.get(group);
    const bits = slot?.map.get(key);
    if (slot === undefined || bits === undefined) return;
    const rest = bits & ~slot.bit;
    if (rest === 0) slot.map.delete(key);
    else slot.map.set(key, rest);
  }

  private slot(group: string): { map: Map<string, number>; bit: number } {
    let slot = this.slots.get(group);
    if (slot === undefined) {
      const i = this.slots.size % 31;
      if (i === 0) this.maps.push(new Map());
      slot = { map: this.maps[this.maps.length - 1]!, bit: 1 << i };
      this.slots.set(group, slot);
    }
    return slot;
  }
}
