import type { JobSpec } from '../../jobs/types.ts';
import type { LoadItem } from '../domain/items.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { AccordWatch } from './accord-watch.ts';
import type { Frontier } from './frontier.ts';
import type { OpenRun } from './types.ts';

/**
 * Which stored similar lists a day's changes made stale, from what the warehouse holds (a
 * reverse index of similar references is a query over similar_fragrances, not a structure
 * kept in memory: 120k lists of 50 would be six million pairs).
 */

/**
 * Similar lists a nightly owes again whatever their age: those that named a fragrance now
 * removed or reformulated (its accords changed: accord-watch.ts), the reformulated one's
 * own, and the lists a new or reformulated fragrance most likely entered (listsNear).
 */
export class SimilarSignals {
  /** Nightly: the stored accords, to see a reformulation in the day's profiles. */
  private accords: AccordWatch | null = null;

  constructor(
    private readonly run: OpenRun,
    private readonly frontier: Pick<Frontier, 'isNew' | 'signal'>,
  ) {}

  async open(): Promise<void> {
    if (this.run.mode === 'nightly') this.accords = await AccordWatch.load(this.run.warehouse);
  }

  /** The similar-list jobs one job's results make owed (`removed`: fragrances it found gone). */
  async owed(removed: string[], items: LoadItem[]): Promise<JobSpec[]> {
    if (this.run.mode !== 'nightly') return [];
    const named = [...removed];
    const stale: string[] = [];
    for (const item of items) {
      if (item.kind !== 'fragrance') continue;
      const reshaped = this.accords?.changed(item.id, item.accords) ?? false;
      if (reshaped) named.push(item.id);
      if (reshaped) stale.push(item.id);
      if (reshaped || this.frontier.isNew('fragrance', item.id))
        stale.push(...(await listsNear(this.run.warehouse, item.id, item.accords)));
    }
    stale.push(...(await listsNaming(this.run.warehouse, named)));
    return stale.length === 0 ? [] : this.frontier.signal('fragrance', stale, 'similar');
  }
}

/** Lists that named one of `removed`: upstream dropped the entry and moved the rest up. */
export async function listsNaming(warehouse: WarehouseHandle, removed: string[]): Promise<string[]> {
  if (removed.length === 0) return [];
  const marks = removed.map((_, i) => `$${i + 1}`).join(', ');
  const rows = await warehouse.query<{ id: string }>(
    `SELECT fragrance_id AS id FROM similar_fragrances WHERE similar_id IN (${marks})
     UNION SELECT fragrance_id FROM similar_fragrances_overflow WHERE similar_id IN (${marks})`,
    removed,
  );
  return rows.map((r) => r.id);
}

/**
 * Lists a new or reformulated fragrance most likely entered. Similarity is accord-based (the
 * spec: 1.0 is an identical accord profile), so its score against each stored fragrance is
 * estimated as the cosine of the two accord-strength vectors, from fragrance_accords; a list
 * whose lowest stored score is not above that estimate has most likely gained it. The
 * newcomer's own list does not tell: a list is cut at its anchor's length, so A may enter
 * B's list while B is beyond the end of A's. A guess, used only to owe lists sooner: a wrong
 * one costs a list read that changed nothing (2 cents) or leaves a list to the weekly
 * refresh (freshness.similarMaxAgeHours), and never removes or writes anything by itself.
 */
export async function listsNear(
  warehouse: WarehouseHandle,
  id: string,
  accords: readonly { name: string; strength: number }[],
): Promise<string[]> {
  const norm = Math.sqrt(accords.reduce((s, a) => s + a.strength * a.strength, 0));
  if (accords.length === 0 || norm === 0) return [];
  const values = accords.map((_, i) => `($${2 * i + 2}, $${2 * i + 3}::DOUBLE)`).join(', ');
  const rows = await warehouse.query<{ id: string }>(
    `WITH n(accord, strength) AS (VALUES ${values}),
     dots AS (
       SELECT a.fragrance_id, sum(a.strength * n.strength) AS dot
       FROM fragrance_accords a JOIN n USING (accord) WHERE a.fragrance_id <> $1 GROUP BY 1),
     norms AS (
       SELECT fragrance_id, sqrt(sum(strength * strength)) AS norm FROM fragrance_accords
       WHERE fragrance_id IN (SELECT fragrance_id FROM dots) GROUP BY 1),
     lists AS (
       SELECT fragrance_id, min(similarity_score) AS lowest FROM similar_fragrances
       WHERE fragrance_id IN (SELECT fragrance_id FROM dots) GROUP BY 1)
     SELECT d.fragrance_id AS id FROM dots d JOIN norms USING (fragrance_id) JOIN lists USING (fragrance_id)
     WHERE d.dot / (norms.norm * ${norm}) >= lists.lowest - 0.001`,
    [id, ...accords.flatMap((a) => [a.name, a.strength])],
  );
  return rows.map((r) => r.id);
}
