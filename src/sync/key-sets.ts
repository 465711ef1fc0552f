import type { JobSpec } from '../../jobs/types.ts';
import type { EntityKind } from '../domain/entities.ts';

export const ENTITIES: EntityKind[] = ['fragrance', 'brand', 'perfumer', 'note', 'accord', 'chart'];

/** The group of a flag per entity in the frontier's KeyBits (`fragrance|:known`), made once. */
function flagGroups(flag: string): Record<EntityKind, string> {
  return Object.fromEntries(ENTITIES.map((e) => [e, `${e}|:${flag}`])) as Record<EntityKind, string>;
}
export const KNOWN = flagGroups('known');
export const REMOVED = flagGroups('removed');
export const NEW = flagGroups('new');

/**
 * The group of a kind's scheduled jobs: in the family of the entity its item is (a
 * fragrance's jobs share its entry), walks and listings in their own.
 */
const scheduledGroups = new Map<string, string>();
export function scheduledGroup(kind: string): string {
  let group = scheduledGroups.get(kind);
  if (group === undefined) {
    const family =
      kind === 'reviewDigest' || /^fragrance[A-Z]/.test(kind)
        ? 'fragrance'
        : kind.startsWith('brand')
          ? 'brand'
          : kind;
    scheduledGroups.set(kind, (group = `${family}|@${kind}`));
  }
  return group;
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
 * Keys in groups, as one map from key to a bit per group: the frontier puts each fragrance in
 * sixteen groups (known, listed, fetched per dataset, scheduled per kind of job, ...), and a
 * Set per group held a hash-table entry per key and group, the fetching thread's largest
 * state at 120k fragrances (sessions 9 and 10, docs/benchmarks.md). A group is named
 * `family|name`: the groups of one family share a map (31 a map; more take another), so the
 * frontier names its groups by entity and a fragrance is one entry in one map.
 */
export class KeyBits {
  private readonly families = new Map<string, Map<string, number>[]>();
  private readonly slots = new Map<string, { map: Map<string, number>; bit: number }>();
  /** Groups per family so far, to place the next one. */
  private readonly used = new Map<string, number>();

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

  /** How many keys the group holds (a walk over its family's map, building nothing). */
  count(group: string): number {
    const slot = this.slots.get(group);
    let n = 0;
    if (slot !== undefined) for (const bits of slot.map.values()) if ((bits & slot.bit) !== 0) n++;
    return n;
  }

  /** The group's keys (a walk over its family's map: for the rare whole-group reads). */
  keys(group: string): string[] {
    const slot = this.slots.get(group);
    const keys: string[] = [];
    if (slot !== undefined) for (const [key, bits] of slot.map) if ((bits & slot.bit) !== 0) keys.push(key);
    return keys;
  }

  private slot(group: string): { map: Map<string, number>; bit: number } {
    let slot = this.slots.get(group);
    if (slot === undefined) {
      const bar = group.indexOf('|');
      const family = bar < 0 ? '' : group.slice(0, bar);
      const i = this.used.get(family) ?? 0;
      this.used.set(family, i + 1);
      let maps = this.families.get(family);
      if (maps === undefined) this.families.set(family, (maps = []));
      if (i % 31 === 0) maps.push(new Map());
      slot = { map: maps[maps.length - 1]!, bit: 1 << (i % 31) };
      this.slots.set(group, slot);
    }
    return slot;
  }
}
