import { PRIORITY } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';
import type { LoadItem, ProgressMark } from '../domain/items.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { sqlFile } from '../warehouse/sql-files.ts';
import { AccordWatch } from './accord-watch.ts';
import type { Frontier } from './frontier.ts';
import { ReleaseProbe } from './release-probe.ts';
import type { OpenRun } from './types.ts';

/**
 * Which stored similar lists a day's changes made stale, from what the warehouse holds (a
 * reverse index of similar references is a query over similar_fragrances, not a structure
 * kept in memory: 120k lists of 50 would be six million pairs).
 */

/** Stored pairs the estimate's error is measured on: enough for its tails, a few ms to read. */
const CALIBRATION_PAIRS = 20_000;
/** Fewer measured pairs than this say nothing of the tails: every list is a guess. */
const CALIBRATION_MIN = 50;

/**
 * Similar lists a nightly owes again whatever their age: those that named a fragrance now
 * removed or reformulated (its accords changed: accord-watch.ts), the reformulated one's
 * own, and, when the service recomputes lists on a release (release-probe.ts finds out), the
 * lists a new or reformulated fragrance most likely entered (listsNear).
 */
export class SimilarSignals {
  /** Nightly: the stored accords, to see a reformulation in the day's profiles. */
  private accords: AccordWatch | null = null;
  /** How far above the estimate the service's score may be (similar-error.sql). */
  private margin = 1;
  /** Releases and reformulations seen in this run. */
  private readonly movers = new Set<string>();
  /** Fragrances whose similar list was read in this run (a signal buys none of them again). */
  private readonly read = new Set<string>();
  readonly probe = new ReleaseProbe();

  constructor(
    private readonly run: OpenRun,
    private readonly frontier: Pick<Frontier, 'isNew' | 'signal' | 'takeStale'>,
    /** Commits what the load stage holds: a list read earlier in this run is then stored. */
    private readonly flush: () => Promise<void>,
  ) {}

  async open(): Promise<void> {
    if (this.run.mode !== 'nightly') return;
    this.accords = await AccordWatch.load(this.run.warehouse);
    const [e] = await this.run.warehouse.query<{ pairs: number; low: number; high: number }>(
      sqlFile('signals/similar-error.sql'),
      [CALIBRATION_PAIRS],
    );
    if (!e || e.pairs < CALIBRATION_MIN) return;
    // Widened by half the spread between the tails: the sample's extremes are not the population's.
    this.margin = Math.max(0, e.high + (e.high - e.low) / 2);
    this.run.log.debug(
      { pairs: e.pairs, low: e.low, high: e.high, margin: this.margin },
      'similar estimate error',
    );
  }

  /** The similar-list jobs one job's results make owed (`removed`: fragrances it found gone). */
  async owed(removed: string[], items: LoadItem[]): Promise<JobSpec[]> {
    // A full run too: the removal deletes the entry from the lists that named it (upstream
    // moved the rest up), so a list read earlier in a cycle over several days is stale.
    if (this.run.mode !== 'nightly') return await this.removedFrom(removed);
    const named = [...removed];
    const stale: string[] = [];
    const probes: string[] = [];
    const lists = new Map<string, { ids: readonly string[]; scores: readonly number[] }>();
    const own = async (mover: string, list: { ids: readonly string[]; scores: readonly number[] }) => {
      // A reformulated anchor's list is computed again on any reading: it proves nothing.
      this.probe.listFailed(mover);
      const next = this.probe.ownList(mover, await this.sure(mover, list.ids, list.scores));
      stale.push(...next.owe);
      for (const p of next.probes) {
        // A list read in this run is bought by no signal: as a probe it waited for a read that
        // would not come. What it holds now (read today) is the evidence, for nothing.
        if (!this.read.has(p)) probes.push(p);
        else stale.push(...this.probe.listRead(p, (lists.get(p) ?? (await this.stored(p))).ids));
      }
    };
    for (const item of items) {
      if (item.kind === 'similar') {
        this.read.add(item.fragranceId);
        lists.set(item.fragranceId, item);
        if (this.movers.has(item.fragranceId)) await own(item.fragranceId, item);
        else stale.push(...this.probe.listRead(item.fragranceId, item.ids));
      }
      if (item.kind !== 'fragrance') continue;
      const reshaped = this.accords?.changed(item.id, item.accords) ?? false;
      if (reshaped) named.push(item.id);
      if (reshaped) stale.push(item.id);
      if (!reshaped && !this.frontier.isNew('fragrance', item.id)) continue;
      const again = this.movers.has(item.id);
      this.movers.add(item.id);
      const near = await listsNear(this.run.warehouse, item.id, item.accords, this.margin);
      stale.push(...this.probe.guessed(item.id, near));
      // Its own list was read in this run before the profile showed the change (a list a
      // capped run left owed is read before any profile is due): the probes come from it now.
      // Waiting for a read that will not come held its guesses to the run's end, stored owed.
      if (this.read.has(item.id) && !again)
        await own(item.id, lists.get(item.id) ?? (await this.stored(item.id)));
    }
    stale.push(...(await listsNaming(this.run.warehouse, named)));
    return [
      // The probes go with the new items: the verdict should come before the guesses are due.
      ...(probes.length === 0 ? [] : this.frontier.signal('fragrance', probes, 'similar', PRIORITY.fresh)),
      ...(stale.length === 0 ? [] : this.frontier.signal('fragrance', stale, 'similar')),
    ];
  }

  private async removedFrom(removed: string[]): Promise<JobSpec[]> {
    const lists = await listsNaming(this.run.warehouse, removed);
    return lists.length === 0 ? [] : this.frontier.signal('fragrance', lists, 'similar');
  }

  /**
   * The run ends: guesses still waiting for a verdict are owed (stored stale, not bought now),
   * so the next run or a plan counts them. Returns the marks to store.
   */
  settle(): ProgressMark[] {
    const held = this.probe.takeHeld();
    if (held.length === 0) return [];
    // The jobs are not submitted: the run is over. The marks say the lists are owed.
    this.frontier.signal('fragrance', held, 'similar');
    return this.frontier.takeStale();
  }

  /** A similar list read earlier in this run, as stored once the load stage committed it. */
  private async stored(id: string): Promise<{ ids: string[]; scores: number[] }> {
    await this.flush();
    const rows = await this.run.warehouse.query<{ id: string; score: number }>(
      sqlFile('signals/own-list.sql'),
      [id],
    );
    return { ids: rows.map((r) => r.id), scores: rows.map((r) => Number(r.score)) };
  }

  /**
   * Entries of a mover's own list that would have entered their own stored list on the live
   * reading (its score there above the list's lowest, the list not naming it yet), surest first.
   */
  private async sure(mover: string, ids: readonly string[], scores: readonly number[]): Promise<string[]> {
    const rows = await this.run.warehouse.query<{ id: string; lowest: number }>(
      sqlFile('signals/lists-lowest.sql'),
      [mover, JSON.stringify(ids)],
    );
    const lowest = new Map(rows.map((r) => [r.id, Number(r.lowest)]));
    return ids
      .map((id, i) => ({ id, gap: (scores[i] ?? 0) - (lowest.get(id) ?? Number.POSITIVE_INFINITY) }))
      .filter((e) => e.gap > 0 && !this.movers.has(e.id) && !this.frontier.isNew('fragrance', e.id))
      .sort((a, b) => b.gap - a.gap)
      .map((e) => e.id);
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
 * Lists a new or reformulated fragrance most likely entered (lists-near.sql): its estimated
 * score against each stored fragrance (the cosine of the accord vectors) reaches that list's
 * lowest less `margin`, the estimate's observed error. The newcomer's own list does not tell
 * them all: a list is cut at its anchor's length, so A may enter B's list while B is beyond
 * the end of A's. A guess: a wrong one costs a list read that changed nothing (2 cents) or
 * leaves a list to the weekly refresh (freshness.similarMaxAgeHours).
 */
export async function listsNear(
  warehouse: WarehouseHandle,
  id: string,
  accords: readonly { name: string; strength: number }[],
  margin: number,
): Promise<string[]> {
  if (!accords.some((a) => a.strength !== 0)) return [];
  const rows = await warehouse.query<{ id: string }>(sqlFile('signals/lists-near.sql'), [
    id,
    JSON.stringify(accords.map((a) => ({ name: a.name, strength: a.strength }))),
    // Float noise on an exact match of the service's formula is not a margin.
    margin + 1e-9,
  ]);
  return rows.map((r) => r.id);
}
