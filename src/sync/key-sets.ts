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
