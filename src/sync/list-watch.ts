import type { EntityKind } from '../domain/entities.ts';
import type { LoadItem, ProgressMark } from '../domain/items.ts';

type WalkMark = Extract<ProgressMark, { kind: 'walk' }>;

/**
 * The fragrance list read whole within one run: which known fragrances it did not name. The
 * list is the one cheap signal of a removal (1 cent per 50 ids), but not a proof: a list that
 * moves while it is read (an item added on page 3 pushes one from page 7 to page 8) can make
 * an item slip between two pages. So a missing id only makes its profile owed first; the
 * profile's 404 removes it, and a profile that answers keeps it.
 */
export class ListWatch {
  /** `seen`: the ids named in this run, kept by the frontier (a bit of its one entry per fragrance). */
  constructor(private readonly seen: { add(key: string): void; has(key: string): boolean }) {}
  private readonly pages = new Set<number>();
  private expected: number | null = null;
  private reported = false;

  /** Ids a fragrance list page named. */
  listed(keys: readonly string[]): void {
    for (const k of keys) this.seen.add(k);
  }

  /** A walk mark: pages of the fragrance list read in this run (page 1 tells how many). */
  page(mark: WalkMark): void {
    const m = /^fragrances@(\d+)$/.exec(mark.walk);
    if (!m || !mark.done) return;
    const page = Number(m[1]);
    this.pages.add(page);
    if (page === 1) this.expected = Math.max(1, Math.ceil(mark.total / (mark.pageSize ?? 50)));
  }

  /**
   * Once, when every page was read in this run: the known ids no page named. Empty before
   * that, and when page 1 was read by an earlier run (its ids are not here). `known` is
   * asked for only then.
   */
  missing(known: () => readonly string[]): string[] {
    if (this.reported || this.expected === null) return [];
    for (let p = 1; p <= this.expected; p++) if (!this.pages.has(p)) return [];
    this.reported = true;
    return known().filter((k) => !this.seen.has(k));
  }
}

/**
 * Takes the removals among a job's items into the frontier first (a profile's 404 must not
 * open the fragrance's other datasets); returns the fragrances removed.
 */
export function takeRemovals(
  frontier: { markRemoved(entity: EntityKind, keys: string[]): void },
  items: readonly LoadItem[],
): string[] {
  const gone: string[] = [];
  for (const item of items) {
    if (item.kind !== 'removal') continue;
    frontier.markRemoved(item.entity, item.keys);
    if (item.entity === 'fragrance') gone.push(...item.keys);
  }
  return gone;
}
